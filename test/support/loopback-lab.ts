// A loopback lab for the page tests: the live server and a chromium page on a cluster with no
// forwarders and no hosts topology, against a stand-in instance that only lists strategies. Its
// servers throw if touched, so a test on it shows what the page and the server refuse, never a race.
// Registers its own beforeAll/afterAll (call it inside a describe); read `.live` and `.page` inside
// tests and hooks.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Assets } from '../../live/assets.js';
import { startLiveServer, type LiveServer } from '../../live/http.js';
import { network } from '../../src/net/network.js';
import type { LabServers, Proc } from '../../live/servers.js';
import type { StrategyInfo } from '../../live/shared/types.js';
import type { ClusterInfo } from '../../src/cluster/cluster.js';
import { loadLiveConfig } from '../../src/config.js';
import { removeTree } from '../../src/paths.js';
import { openPage, type OpenPage } from './browser.js';

/** A strategy as an instance's GET /strategies lists it: its human text in one language. */
export type ListedStrategy = Omit<StrategyInfo, 'course' | 'description'> & { course: string; description: string };

export interface LoopbackOptions {
  /** the page bundle, read in beforeAll (the test file bundles it in a beforeAll of its own) */
  assets: () => Assets;
  /** names the lab's temp dir: stocklab-<what>-… */
  what: string;
  /** the round trip the cluster's record states, if any (no forwarders either way) */
  rttMs?: number;
}

export interface LoopbackLab {
  readonly live: LiveServer;
  /** an en-US page, idle */
  readonly page: OpenPage;
}

export function loopbackLab(strategies: ListedStrategy[], options: LoopbackOptions): LoopbackLab {
  let instance: http.Server | undefined;
  let live: LiveServer | undefined;
  let page: OpenPage | undefined;
  let dir = '';
  const never = async (): Promise<never> => {
    throw new Error('the loopback lab must not touch a server');
  };
  const untouchable = (name: string): Proc => ({ name, isUp: async () => true, freeze: never, resume: never, kill: never, start: never });

  beforeAll(async () => {
    const server = http.createServer((req, res) => {
      const ok = req.method === 'GET' && (req.url ?? '').startsWith('/strategies');
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { strategies } : { error: 'not_found' }));
    });
    instance = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `stocklab-${options.what}-`));
    const info: ClusterInfo = {
      dir,
      nginx: base,
      instances: [base],
      mysql: { host: '127.0.0.1', port: 0, user: '', password: '', database: '' },
      redis: '',
      redlock: [],
      zookeeper: '',
      ...(options.rttMs !== undefined && { rttMs: options.rttMs }),
    };
    const servers: LabServers = {
      info,
      network: network({}),
      topology: 'single',
      instances: [untouchable('app-0')],
      redlock: [],
      zookeeper: untouchable('zookeeper'),
    };
    live = await startLiveServer(servers, { ...loadLiveConfig({}), port: 0 }, options.assets(), 0);
    page = await openPage(live.url, 'en-US');
    await page.page.waitForSelector('body[data-state="idle"]');
  });
  afterAll(async () => {
    await page?.close();
    await live?.close();
    await new Promise<void>((resolve) => (instance ? instance.close(() => resolve()) : resolve()));
    if (dir) removeTree(dir);
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`loopback lab: ${what} only available inside tests and hooks`);
    return value;
  };
  return {
    get live() {
      return ready(live, 'live');
    },
    get page() {
      return ready(page, 'page');
    },
  };
}
