// The round trip on the live page (issue 38, item 4), in chromium, on a private cluster with delayed
// links: brought up at 2 ms and set to 0 before the page opens, as the bench's sweep does (a cluster
// brought up at 0 has no forwarders to retime). The tour's pair races redis-pubsub at 0 ms, then at
// 2 ms: both exact, the round trip the page shows follows the record (2 ms during the second race,
// 0 after), the links are back at 0 afterwards, and every hold at 2 ms lasts at least the two MySQL
// round trips inside it (the forwarders never deliver early, so this bound holds on any machine; the
// medians at both round trips are printed beside it). On a loopback lab (no forwarders) the steps say what they need and the server refuses a
// race with rttMs. Every wait is on the page's own markers. LIVE_SCREENSHOTS=/tmp/shots keeps its
// screenshots at 1280×800 and 390×844 in both languages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, type Assets } from '../../live/assets.js';
import { startLiveServer, TOKEN_HEADER, type LiveServer } from '../../live/http.js';
import { DICTIONARIES } from '../../live/page/i18n.js';
import { TOUR } from '../../live/page/tour.js';
import { runningServers } from '../../live/servers.js';
import type { Hold, LabState, RunLog } from '../../live/shared/types.js';
import { freeClusterConfig, startCluster, type RunningCluster } from '../../src/cluster/cluster.js';
import { rttFile } from '../../src/cluster/links.js';
import { loadLiveConfig } from '../../src/config.js';
import { openPage, type OpenPage } from '../support/browser.js';
import { withFixture } from '../support/fixture.js';
import { loopbackLab } from '../support/loopback-lab.js';

const SHOTS = process.env.LIVE_SCREENSHOTS;
/** The tour's pair: one lock raced with the links at 0 ms, then at 2 ms. */
const AT_0 = TOUR.findIndex((s) => s.settings.rttMs === 0);
const AT_2 = TOUR.findIndex((s) => s.settings.rttMs === 2);
/**
 * The least a hold can last at 2 ms: the stock's read and its write, each a MySQL round trip that the
 * forwarders delay by at least the round trip (test/unit/forwarder.test.ts: "never less"), less 5 %
 * for the clocks' rounding. A lower bound, not a speed: a slow machine only lengthens holds.
 */
const LEAST_HOLD_AT_2_MS = 2 * 2 * 0.95;

let assets: Assets;
const t0 = Date.now();
beforeAll(async () => void (assets = await bundlePage()));
afterAll(() => console.log(`rtt.test.ts: ${((Date.now() - t0) / 1000).toFixed(1)} s in all, cluster boot included`));

const post = (live: LiveServer, body: unknown) =>
  fetch(new URL('/api/race', live.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: live.token },
    body: JSON.stringify(body),
  });

async function lastRun(live: LiveServer): Promise<RunLog> {
  const { runs } = (await (await fetch(new URL('/api/runs', live.url))).json()) as { runs: { id: string }[] };
  return (await (await fetch(new URL(`/api/run?id=${encodeURIComponent(runs[0]!.id)}`, live.url))).json()) as RunLog;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

/** A run's median and shortest hold, and its median gap between one hold's end and the next one's start (the hand-off). */
function holdFigures(run: RunLog): { hold: number; shortest: number; gap: number; holds: number } {
  const holds: Hold[] = run.frames
    .flatMap((f) => f.holds)
    .filter((h) => h.status === 200)
    .sort((a, b) => a.start - b.start);
  const gaps = holds.slice(1).map((h, i) => h.start - (holds[i] as Hold).end);
  const lengths = holds.map((h) => h.end - h.start);
  return { hold: median(lengths), shortest: Math.min(...lengths), gap: median(gaps), holds: holds.length };
}

/** The step's button: its handler rebuilds the tour panel before the click resolves. */
const pickStep = (p: OpenPage, index: number) => p.page.click(`[data-tour-index="${index}"]`);

describe('the round trip on the live page, a cluster with delayed links', () => {
  const own = withFixture<RunningCluster>(
    'live-rtt',
    async (dir) => {
      const cluster = await startCluster({ config: { ...(await freeClusterConfig(dir, 3)), rttMs: 2 }, instanceEnv: { LOG_LEVEL: 'warn' } });
      try {
        await cluster.setRtt(0);
      } catch (err) {
        await cluster.stop();
        throw err;
      }
      return cluster;
    },
    (cluster) => cluster.stop(),
  );
  let live: LiveServer;
  let en: OpenPage;

  beforeAll(async () => {
    live = await startLiveServer(runningServers(own.current), { ...loadLiveConfig({}), port: 0 }, assets, 0);
    en = await openPage(live.url, 'en-US');
    await en.page.waitForSelector('body[data-state="idle"]');
  });
  afterAll(async () => {
    await en?.close();
    await live?.close();
  });

  it('races redis-pubsub at 0 ms and at 2 ms: both exact, the round trip shown, longer holds at 2 ms, the links back at 0 after', async () => {
    const started = Date.now();
    const rtt = en.page.locator('#rtt');
    expect(await rtt.getAttribute('data-rtt-ms')).toBe('0');
    expect(await rtt.textContent()).toBe(DICTIONARIES.en.rttLinks.replace('{ms}', '0'));

    await pickStep(en, AT_0);
    expect(await en.page.textContent('#tour-text')).toBe(DICTIONARIES.en[TOUR[AT_0]!.text]);
    await en.page.click('#tour-run');
    await en.page.waitForSelector('body[data-state="racing"]');
    await en.page.waitForSelector('body[data-state="done"]', { timeout: 40_000 });
    const zero = await lastRun(live);

    await pickStep(en, AT_2);
    await en.page.click('#tour-run');
    // the links are retimed before the race starts and set back before its end is told
    await en.page.waitForSelector('#rtt[data-rtt-ms="2"]');
    expect(await rtt.textContent()).toBe(DICTIONARIES.en.rttLinks.replace('{ms}', '2'));
    await en.page.waitForSelector('body[data-state="racing"]');
    await en.page.waitForSelector('body[data-state="done"]', { timeout: 40_000 });
    const two = await lastRun(live);
    expect(await rtt.getAttribute('data-rtt-ms')).toBe('0');

    // back at 0: the record, the lab's state, and every forwarder's own file
    const info = own.current.info;
    expect(info.rttMs).toBe(0);
    expect(((await (await fetch(new URL('/api/state', live.url))).json()) as LabState).rttMs).toBe(0);
    const links = own.current.servers.links;
    expect(links.length).toBeGreaterThan(0);
    expect(links.map((l) => fs.readFileSync(rttFile(info.dir, l.name), 'utf8').trim()).filter((ms) => ms !== '0')).toEqual([]);

    const [a, b] = [holdFigures(zero), holdFigures(two)];
    const ratio = b.hold / a.hold;
    console.log(
      `redis-pubsub, three instances: at 0 ms ${zero.summary?.tally.sold} sold, ${a.holds} holds, median hold ${a.hold.toFixed(2)} ms (shortest ${a.shortest.toFixed(2)}), median gap ${a.gap.toFixed(2)} ms, ${zero.summary?.seconds.toFixed(2)} s; ` +
        `at 2 ms ${two.summary?.tally.sold} sold, ${b.holds} holds, median hold ${b.hold.toFixed(2)} ms (shortest ${b.shortest.toFixed(2)}), median gap ${b.gap.toFixed(2)} ms, ${two.summary?.seconds.toFixed(2)} s; ` +
        `median hold ratio ${ratio.toFixed(2)}; shortest hold at 2 ms ${b.shortest.toFixed(2)} ms (bound ≥ ${LEAST_HOLD_AT_2_MS}); the pair in ${Date.now() - started} ms; load average ${os.loadavg()[0]?.toFixed(1)}`,
    );
    for (const run of [zero, two]) {
      expect(run.settings.strategy).toBe('redis-pubsub');
      expect(run.summary?.oversold).toBe(0);
      expect(run.summary?.overlaps).toBe(0);
      expect(run.summary?.tally.sold).toBeGreaterThan(0);
    }
    expect(zero.settings.rttMs).toBe(0);
    expect(two.settings.rttMs).toBe(2);
    expect(b.shortest).toBeGreaterThanOrEqual(LEAST_HOLD_AT_2_MS);
    if (SHOTS) await shoot(en, 'en');

    // in Chinese: the step's words, the round trip's, and the pair side by side
    const zh = await openPage(`${live.url}?lang=zh`, 'zh-CN');
    try {
      await zh.page.waitForSelector('body[data-lang="zh"][data-state="idle"]');
      expect(await zh.page.textContent('#rtt')).toBe(DICTIONARIES.zh.rttLinks.replace('{ms}', '0'));
      await pickStep(zh, AT_2);
      expect(await zh.page.textContent('#tour-text')).toBe(DICTIONARIES.zh[TOUR[AT_2]!.text]);
      await zh.page.waitForSelector('#compare');
      await zh.page.click('#compare');
      await zh.page.waitForSelector('[data-stage="replay"]');
      if (SHOTS) await shoot(zh, 'zh');
    } finally {
      await zh.close();
    }
  }, 60_000);
});

describe('the pair on a loopback lab (no forwarders)', () => {
  // A lab whose cluster has no links (test/support/loopback-lab.ts): nothing is raced or retimed;
  // the steps say what they need and the server refuses rttMs.
  const lab = loopbackLab(
    [
      {
        name: 'redis-pubsub',
        family: 'redis',
        course: '§2.10',
        description: 'pubsub lock',
        expected: { oneInstance: 'exact', threeInstances: 'exact' },
        stores: ['mysql'],
      },
    ],
    { assets: () => assets, what: 'loopback-rtt', rttMs: 0 },
  );

  it('shows loopback; each step says it needs delayed links and cannot run; the server refuses rttMs, and checks it', async () => {
    const { live, page: p } = lab;
    expect(await p.page.getAttribute('#rtt', 'data-rtt-ms')).toBe('none');
    expect(await p.page.textContent('#rtt')).toBe(DICTIONARIES.en.rttLoopback);
    for (const index of [AT_0, AT_2]) {
      await pickStep(p, index);
      expect(await p.page.textContent('#tour-needs')).toBe(DICTIONARIES.en.needsLinks);
      expect(await p.page.isDisabled('#tour-run')).toBe(true);
    }
    const refused = await post(live, TOUR[AT_2]!.settings);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { ok: boolean; field: string; message: string };
    console.log(`loopback lab, rttMs 2: ${refused.status} ${body.message}`);
    expect(body).toMatchObject({ ok: false, field: 'rttMs' });
    expect(body.message).toContain('--rtt');
    for (const rttMs of [51, -1, '2', null]) {
      const bad = await post(live, { ...TOUR[AT_2]!.settings, rttMs });
      expect(bad.status, String(rttMs)).toBe(400);
      expect(await bad.json()).toMatchObject({ ok: false, field: 'rttMs' });
    }
    // the other steps are untouched by it: a step without rttMs runs on this lab
    await pickStep(p, 0);
    expect(await p.page.locator('#tour-needs').count()).toBe(0);
  });
});

async function shoot(p: OpenPage, lang: string): Promise<void> {
  const dir = SHOTS as string;
  fs.mkdirSync(dir, { recursive: true });
  await p.page.setViewportSize({ width: 1280, height: 800 });
  await p.page.screenshot({ path: path.join(dir, `live-rtt-${lang}-1280.png`) });
  await p.page.setViewportSize({ width: 390, height: 844 });
  await p.page.screenshot({ path: path.join(dir, `live-rtt-${lang}-390.png`), fullPage: true });
  await p.page.setViewportSize({ width: 1280, height: 800 });
}
