// GET /metrics as Prometheus sees it: a real Prometheus (Debian's package) scrapes the shared
// cluster's instances every second; a race through nginx; then its HTTP API is asked for the lock
// wait histogram of that strategy and for the instances' event-loop lag.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { race } from '../../src/load/race.js';
import { ensureExecutable } from '../../src/cluster/packages.js';
import { freePorts } from '../../src/cluster/ports.js';
import { sleep } from '../../src/time.js';
import { sharedCluster } from '../support/cluster.js';
import { promQuery, promQueryUntil, firstValue, type Sample } from '../support/prometheus.js';
import { expectExactRace } from '../support/race-checks.js';

const info = sharedCluster();
const STRATEGY = 'redis-setnx-ex';

let prometheus: ChildProcess | undefined;
let api = '';
let dir = '';

const query = (q: string) => promQuery(api, q);
const queryUntil = (q: string, done: (r: Sample[]) => boolean) => promQueryUntil(api, q, done);

beforeAll(async () => {
  // Installed as the cluster's servers are, when missing (npm test needs nothing installed by hand).
  const binary = ensureExecutable(['prometheus'], 'prometheus', (line) => console.log(`[prometheus] ${line}`));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-prometheus-'));
  const [port] = await freePorts(1);
  api = `http://127.0.0.1:${port}`;
  const targets = info.instances.map((u) => new URL(u).host);
  // honor_labels: the instances' own `instance` label (app-<port>) stays, instead of becoming exported_instance
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: stocklab',
      '    honor_labels: true',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  prometheus = spawn(
    binary,
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'prometheus.log'), 'w')] },
  );
  const until = Date.now() + 30_000;
  while (
    !(await fetch(`${api}/-/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > until || prometheus.exitCode !== null)
      throw new Error(`prometheus did not become ready: ${fs.readFileSync(path.join(dir, 'prometheus.log'), 'utf8').slice(-2000)}`);
    await sleep(200);
  }
}, 60_000);

afterAll(async () => {
  if (prometheus?.pid !== undefined && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
    process.kill(prometheus.pid, 'SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('Prometheus scraping the instances', () => {
  it('sees a race as lock waits per strategy and instance, and the event-loop lag of each instance', async () => {
    // every instance scraped at least once
    const up = await queryUntil('sum(up{job="stocklab"})', (r) => firstValue(r) === info.instances.length);
    expect(firstValue(up)).toBe(info.instances.length);
    const before = firstValue(await query(`sum(stocklab_lock_wait_seconds_count{strategy="${STRATEGY}",outcome="acquired"}) or vector(0)`));

    const r = await race({
      target: info.nginx,
      stores: info,
      strategy: STRATEGY,
      store: 'redis',
      initial: 200,
      requests: 300,
      connections: 50,
      maxSeconds: 60,
    });
    expectExactRace(r, STRATEGY);

    // Every answered request acquired the lock once (200 or 409 both decide under it).
    const acquired = r.ok + r.soldOut;
    const waits = await queryUntil(
      `sum(stocklab_lock_wait_seconds_count{strategy="${STRATEGY}",outcome="acquired"})`,
      (s) => firstValue(s) - before >= acquired,
    );
    const byInstance = await query(`sum by (instance) (stocklab_lock_wait_seconds_count{strategy="${STRATEGY}",outcome="acquired"})`);
    const p99 = await query(`histogram_quantile(0.99, sum by (le) (stocklab_lock_wait_seconds_bucket{strategy="${STRATEGY}"}))`);
    const holds = await query(`sum(stocklab_lock_hold_seconds_count{strategy="${STRATEGY}"})`);
    // printed, not asserted: how often a request found the lock taken depends on the machine's timing
    const retries = await query(`sum by (reason) (stocklab_retries_total{strategy="${STRATEGY}"})`);
    const lag = await queryUntil('nodejs_eventloop_lag_seconds{job="stocklab"}', (s) => s.length === info.instances.length);
    console.log(
      `prometheus: ${STRATEGY} race ${r.ok}/${r.soldOut} (200/409); lock waits acquired +${firstValue(waits) - before} ` +
        `(${byInstance.map((s) => `${s.metric.instance} ${s.value[1]}`).join(', ')}), wait p99 ${(firstValue(p99) * 1000).toFixed(1)} ms, holds ${firstValue(holds)}, ` +
        `retries ${retries.map((s) => `${s.metric.reason} ${s.value[1]}`).join(', ') || 'none'}; ` +
        `event-loop lag ${lag.map((s) => `${s.metric.instance} ${(Number(s.value[1]) * 1000).toFixed(2)} ms`).join(', ')}`,
    );
    expect(firstValue(waits) - before).toBe(acquired);
    expect(byInstance.map((s) => s.metric.instance).sort()).toEqual(info.instances.map((u) => `app-${new URL(u).port}`).sort());
    expect(firstValue(p99)).toBeGreaterThan(0);
    expect(firstValue(holds)).toBeGreaterThanOrEqual(firstValue(waits));
    expect(lag.map((s) => s.metric.instance).sort()).toEqual(byInstance.map((s) => s.metric.instance).sort());
    for (const s of lag) expect(Number(s.value[1])).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
