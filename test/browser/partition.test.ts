// The live page's partitions (issue: hosts and partitions) in chromium, on a private hosts-topology
// cluster: a cut goes through the lab's guarded POST and heals by itself; the tour's step "the holder
// cut from the lock service" plays, its cut drawn as a band across the holder's lane from the times
// the cut and its heal were recorded at, oversold > 0 unfenced and 0 fenced. Every wait is on the
// page's own markers (body[data-state], data-value, data-end). On a loopback lab the step says what
// it needs instead of failing. Set LIVE_SCREENSHOTS=docs/img to keep the screenshots of the band.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, type Assets } from '../../live/assets.js';
import { startLiveServer, TOKEN_HEADER, type LiveServer } from '../../live/http.js';
import { DICTIONARIES } from '../../live/page/i18n.js';
import { TOUR } from '../../live/page/tour.js';
import { runningServers } from '../../live/servers.js';
import type { RunLog } from '../../live/shared/types.js';
import { freeClusterConfig, startCluster, type RunningCluster } from '../../src/cluster/cluster.js';
import { partitionLog } from '../../src/cluster/partitions.js';
import { loadLiveConfig } from '../../src/config.js';
import { hasNetAdmin, type HostsLayout } from '../../src/net/hosts.js';
import { grudgeInForce, type PartitionRecord } from '../../src/net/partition.js';
import { openPage, type OpenPage } from '../support/browser.js';
import { withFixture } from '../support/fixture.js';
import { loopbackLab, type ListedStrategy } from '../support/loopback-lab.js';

const SHOTS = process.env.LIVE_SCREENSHOTS;
/** The tour's two steps of the holder cut from Redis: unfenced, then fenced. */
const CUT_STEP = TOUR.findIndex((s) => s.settings.cutHolder && !s.settings.fenced);
const FENCED_STEP = TOUR.findIndex((s) => s.settings.cutHolder && s.settings.fenced);

let assets: Assets;
beforeAll(async () => void (assets = await bundlePage()));

const post = (live: LiveServer, route: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL(route, live.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const figure = async (p: OpenPage, key: string) => Number(await p.page.getAttribute(`[data-stage="live"] [data-figure="${key}"]`, 'data-value'));

async function runTourStep(p: OpenPage, index: number): Promise<void> {
  await p.page.click(`[data-tour-index="${index}"]`);
  await p.page.click('#tour-run');
  await p.page.waitForSelector('body[data-state="racing"]');
  await p.page.waitForSelector('body[data-state="done"]', { timeout: 40_000 });
}

/** The partition records appended since `from` lines were there. */
const recordsSince = (file: string, from: number): PartitionRecord[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(from)
    .map((l) => JSON.parse(l) as PartitionRecord);
const lineCount = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).length : 0);

describe.skipIf(!hasNetAdmin())('partitions on the live page, hosts topology (needs root)', () => {
  const own = withFixture<RunningCluster>(
    'live-hosts',
    async (dir) => startCluster({ config: await freeClusterConfig(dir, 3, 'hosts'), instanceEnv: { LOG_LEVEL: 'warn', FAULT_INJECTION: '1' } }),
    (cluster) => cluster.stop(),
  );
  let live: LiveServer;
  let en: OpenPage;
  let layout: HostsLayout;
  let app0: string;

  beforeAll(async () => {
    layout = own.current.layout as HostsLayout;
    app0 = own.current.servers.instances[0]!.name;
    live = await startLiveServer(runningServers(own.current), { ...loadLiveConfig({}), port: 0 }, assets, 0);
    en = await openPage(live.url, 'en-US');
    await en.page.waitForSelector('body[data-state="idle"]');
  });
  afterAll(async () => {
    await en?.close();
    await live?.close();
  });

  it("refuses a cut without the token; the page's button cuts app-0 from Redis, recorded, drawn, and healed by itself", async () => {
    const body = { action: 'partition', target: app0, from: 'redis', ms: 1_500 };
    const refused = await post(live, '/api/fault', body);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ ok: false, error: 'bad_token', field: TOKEN_HEADER });
    expect(await grudgeInForce(layout)).toEqual({});

    const log = partitionLog(own.current.info.dir);
    const before = lineCount(log);
    await en.page.locator('#faultMs').evaluate((e: { value: string; dispatchEvent(ev: Event): boolean }) => {
      e.value = '1500';
      e.dispatchEvent(new Event('change'));
    });
    await en.page.click(`#partitions [data-fault="partition"][data-target="${app0}"][data-from="redis"]`);
    const band = en.page.locator(`rect[data-fault="partition"][data-lanes="${app0}"]`);
    await band.waitFor();
    expect(await grudgeInForce(layout)).toEqual({ [app0]: ['redis'], redis: [app0] });
    // healed by itself: the band gets its end, the rules are gone, and both changes are recorded
    await en.page.waitForSelector(`rect[data-fault="partition"][data-end]`, { timeout: 5_000 });
    expect(await grudgeInForce(layout)).toEqual({});
    const records = recordsSince(log, before);
    expect(records.map((r) => r.grudge)).toEqual([{ [app0]: ['redis'], redis: [app0] }, {}]);
    const [start, end] = [Number(await band.getAttribute('data-start')), Number(await band.getAttribute('data-end'))];
    expect(end - start).toBeGreaterThanOrEqual(1_400);
    expect(Math.abs(end - start - (records[1]!.t - records[0]!.t))).toBeLessThanOrEqual(50);
  });

  it('the tour step: the holder cut from Redis while it holds; the band across its lane, oversold > 0; fenced, 0', async () => {
    await runTourStep(en, CUT_STEP);
    const oversold = await figure(en, 'oversold');
    const overlaps = await figure(en, 'overlaps');
    const band = en.page.locator(`[data-stage="live"] rect[data-fault="partition"]`);
    expect(await band.count()).toBe(1);
    expect(await band.getAttribute('data-lanes')).toBe(app0);
    expect(await band.getAttribute('data-from')).toBe('redis');
    // across the first lane, and that lane only
    const lane = await en.page.locator('[data-stage="live"] rect.lane').first().boundingBox();
    const drawn = await band.boundingBox();
    expect(drawn!.y).toBeLessThanOrEqual(lane!.y);
    expect(drawn!.y + drawn!.height).toBeGreaterThanOrEqual(lane!.y + lane!.height);
    expect(drawn!.height).toBeLessThan(2 * lane!.height);
    // from the recorded cut to the recorded heal, on the run's clock
    const { runs } = (await (await fetch(new URL('/api/runs', live.url))).json()) as { runs: { id: string }[] };
    const run = (await (await fetch(new URL(`/api/run?id=${runs[0]!.id}`, live.url))).json()) as RunLog;
    const mark = run.frames.at(-1)!.faults.find((f) => f.kind === 'partition')!;
    expect(mark.end).toBeDefined();
    expect(Number(await band.getAttribute('data-start'))).toBe(Math.round(mark.start));
    expect(Number(await band.getAttribute('data-end'))).toBe(Math.round(mark.end!));
    const holder = run.frames.flatMap((f) => f.holds).find((h) => h.lane === app0 && h.start < mark.start);
    console.log(
      `holder cut from redis: oversold ${oversold}, overlapping holds ${overlaps}, cut ${Math.round(mark.start)}–${Math.round(mark.end!)} ms, holder's hold ${Math.round(holder?.start ?? NaN)}–${Math.round(holder?.end ?? NaN)} ms, refused ${JSON.stringify(run.summary?.tally.refused)}`,
    );
    expect(holder, 'the cut landed while app-0 held the lock').toBeDefined();
    expect(holder!.end).toBeGreaterThan(mark.start);
    expect(mark.end!).toBeGreaterThanOrEqual(holder!.end);
    expect(overlaps).toBeGreaterThanOrEqual(2);
    expect(oversold).toBeGreaterThan(0);
    expect(await grudgeInForce(layout)).toEqual({});
    if (SHOTS) await shoot(en, 'en');
    // the same run replayed, in Chinese: the band and its words
    const zh = await openPage(`${live.url}?lang=zh`, 'zh-CN');
    try {
      await zh.page.waitForSelector('body[data-lang="zh"][data-state="idle"]');
      await zh.page.click(`[data-tour-index="${CUT_STEP}"]`);
      expect(await zh.page.textContent('#tour-text')).toBe(DICTIONARIES.zh[TOUR[CUT_STEP]!.text]);
      await zh.page.click(`[data-replay="${run.id}"]`);
      const replayed = zh.page.locator('[data-stage="replay"] rect[data-fault="partition"]');
      await replayed.waitFor();
      expect(await replayed.getAttribute('data-lanes')).toBe(app0);
      expect(await replayed.locator('title').textContent()).toContain(`${app0} 与 redis 之间的链路被切断`);
      expect(await zh.page.textContent('.legend')).toContain(DICTIONARIES.zh.legendCut);
      if (SHOTS) await shoot(zh, 'zh');
    } finally {
      await zh.close();
    }

    await runTourStep(en, FENCED_STEP);
    const fenced = Number(await en.page.getAttribute('[data-stage="live"] [data-refused="fenced"]', 'data-value'));
    console.log(`holder cut from redis, fenced: oversold ${await figure(en, 'oversold')}, 503 fenced ${fenced}`);
    expect(await en.page.locator('[data-stage="live"] rect[data-fault="partition"]').count()).toBe(1);
    expect(await figure(en, 'oversold')).toBe(0);
    expect(fenced).toBeGreaterThanOrEqual(1);
  }, 80_000);
});

describe('the tour step on a loopback lab', () => {
  // A lab with no hosts topology (test/support/loopback-lab.ts): nothing is raced or faulted; the
  // step must say what it needs, and the server refuse a cut.
  const strategy: ListedStrategy = {
    name: 'redis-owned',
    family: 'redis',
    course: '§2.5',
    description: 'owned lock',
    expected: { oneInstance: 'exact', threeInstances: 'exact' },
    stores: ['mysql'],
  };
  const postgresOnly: ListedStrategy = { ...strategy, name: 'pg-advisory-xact', family: 'postgres', description: 'advisory lock', stores: ['postgres'] };
  const lab = loopbackLab([strategy, postgresOnly], { assets: () => assets, what: 'loopback-lab' });

  it('says it needs --topology hosts, offers no cut, and the server refuses one', async () => {
    const { live, page: p } = lab;
    await p.page.click(`[data-tour-index="${CUT_STEP}"]`);
    expect(await p.page.textContent('#tour-needs')).toBe(DICTIONARIES.en.needsHosts);
    expect(await p.page.isDisabled('#tour-run')).toBe(true);
    expect(await p.page.locator('#partitions').count()).toBe(0);
    const token = { [TOKEN_HEADER]: live.token };
    const cut = await post(live, '/api/fault', { action: 'partition', target: 'app-0', from: 'redis' }, token);
    expect(cut.status).toBe(400);
    expect(await cut.json()).toMatchObject({ ok: false, field: 'action' });
    const race = await post(live, '/api/race', TOUR[CUT_STEP]!.settings, token);
    expect(race.status).toBe(400);
    expect(await race.json()).toMatchObject({ ok: false, field: 'cutHolder' });
  });

  it('refuses a race of a Postgres-only strategy where the cluster records no PostgreSQL', async () => {
    const { live } = lab;
    const settings = { strategy: 'pg-advisory-xact', units: 10, requests: 10, connections: 2, workMs: 0, ttlMs: 1_000, fenced: false, via: 'one' };
    const race = await post(live, '/api/race', settings, { [TOKEN_HEADER]: live.token });
    expect(race.status).toBe(400);
    expect(await race.json()).toMatchObject({ ok: false, field: 'strategy' });
  });
});

async function shoot(p: OpenPage, lang: string): Promise<void> {
  const dir = SHOTS as string;
  fs.mkdirSync(dir, { recursive: true });
  await p.page.setViewportSize({ width: 1280, height: 800 });
  await p.page.screenshot({ path: path.join(dir, `live-partition-${lang}-1280.png`) });
}
