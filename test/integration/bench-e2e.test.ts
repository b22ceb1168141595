// One short bench against the shared test cluster, through the same code as `npm run bench`:
// the JSON it writes must show `none` overselling and `sql-update` exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench } from '../../bench/bench.js';
import { chosenStrategies, COURSE_LINE, MIN_RACE_UNITS, parseBenchArgs } from '../../bench/options.js';
import { fetchCatalog, selectStrategies } from '../../src/load/catalog.js';
import { writeReport } from '../../bench/report-cli.js';
import type { BenchReport } from '../../report/bench/report.js';
import { resolveTarget } from '../../bench/target.js';
import { measureWindow } from '../../bench/measure.js';
import { wrkPath } from '../../bench/wrk.js';
import { sharedCluster } from '../support/cluster.js';

describe('npm run bench, end to end', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-bench-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('measures none overselling and sql-update exact, on one instance and three, in interleaved rounds', async () => {
    const cluster = sharedCluster();
    // workMs widens the read-then-write window, so `none` oversells even on a quiet machine
    const opts = parseBenchArgs([
      '--strategies',
      'none,sql-update',
      '--rounds',
      '2',
      '--warmup',
      '0.1',
      '--window',
      '0.3',
      '--connections',
      '30',
      '--workMs',
      '3',
      '--maxSeconds',
      '20',
      '--out',
      out,
    ]);
    // the course's rows race apart, here at 300 for 200 instead of its 5100 for 5000; sql-update's last window is its race
    Object.assign(opts, { courseRequests: 300, courseInitial: 200 });
    const logged: string[] = [];
    const report = await runBench(opts, resolveTarget(opts, {}, cluster), (l) => logged.push(l));
    const files = writeReport(report, out);

    const json = JSON.parse(fs.readFileSync(files.json, 'utf8')) as BenchReport;
    const pick = (s: string) => json.runs.filter((r) => r.strategy === s);
    expect(pick('none').map((r) => r.topology)).toEqual(['one', 'three']);
    for (const r of pick('none')) expect(r.worst.oversold, `none ${r.topology}`).toBeGreaterThan(0);
    for (const r of pick('none')) expect(r.race).toMatchObject({ requests: 300, initial: 200 });
    for (const r of pick('sql-update')) {
      expect(r.worst, `sql-update ${r.topology}`).toEqual({ oversold: 0, unanswered: 0 });
      // a window that sold out: every unit sold once, more requests than units, the rest told so
      expect(r.race).toMatchObject({ ok: r.race.initial, refused: 0, unexpected: 0, left: 0, deducted: r.race.initial });
      expect(r.race.initial).toBeGreaterThanOrEqual(MIN_RACE_UNITS);
      expect(r.race.soldOut).toBeGreaterThan(0);
      expect(r.race.requests).toBe(r.race.ok + r.race.soldOut);
      // its span before the stock ran out is a goodput sample unless it sold out too early
      expect(r.throughput.goodput.samples.length).toBeGreaterThanOrEqual(1);
      expect(r.throughput.goodput.median).toBeGreaterThan(0);
    }
    // mutex joins as the efficiency reference
    expect(pick('mutex').find((r) => r.topology === 'one')?.efficiency).toBe(1);
    // every window's time, part by part: the warm-up and span as asked, the rest measured around them
    expect(json.windowTime).toMatchObject({ parts: { warmup: { median: 100, max: 100 }, measured: { median: 300, max: 300 } } });
    expect(json.windowTime?.windows).toBeGreaterThanOrEqual(10);
    expect(json.windowTime?.longestDrains).toHaveLength(3);
    expect(json.ceilings.map((c) => c.topology)).toEqual(['one', 'three']);
    for (const c of json.ceilings) {
      expect(c.autocannon.samples).toHaveLength(2);
      // CI installs wrk; without it the ceiling says so instead of comparing
      if (wrkPath()) expect(c.wrk?.samples).toHaveLength(2);
      else expect(c.wrk).toBeNull();
    }
    // Every line starts with the plan's position, elapsed and time left: warm-ups 2, ceilings 2 × 2,
    // windows 2 × 6 (mutex joined), races apart 4 (none's and mutex's) = 22 steps, counted up in order, all done at the end.
    const plan = logged.map((l) => /^\[(\d+)\/(\d+) · \d+:\d\d · ~\d+:\d\d left\] /.exec(l));
    expect(logged.filter((_, i) => !plan[i])).toEqual([]);
    const done = plan.map((m) => Number(m?.[1]));
    expect(new Set(plan.map((m) => m?.[2]))).toEqual(new Set(['22']));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(22);
    const lines = logged.map((l, i) => l.slice(plan[i]?.[0].length ?? 0));
    expect(lines.filter((l) => l.startsWith('[round 2/2]')).length).toBeGreaterThanOrEqual(6);
    expect(lines.some((l) => l.startsWith('[race] none · 1 instance') && l.includes('OVERSOLD'))).toBe(true);
    expect(lines.filter((l) => l.startsWith('[round 2/2, sells out] sql-update') && l.includes('exact'))).toHaveLength(2);
    expect(lines.some((l) => l.startsWith('[race] sql-update'))).toBe(false);
    expect(fs.readFileSync(files.md, 'utf8')).toContain('OVERSOLD');
    expect(fs.readFileSync(files.html, 'utf8')).toContain('<svg');
  });

  it("ends a window's lock waits with its span: the queue is refused after it, nothing inside it, and the store stays exact", async () => {
    const cluster = sharedCluster();
    const s = (await fetchCatalog(cluster.instances[0] as string)).find((c) => c.name === 'redis-setnx-ex');
    if (!s) throw new Error('redis-setnx-ex is not in GET /strategies');
    // Each holder works 250 ms, so about 2 of the 20 connections sell in the span and the rest queue:
    // served one by one after it, they would drain for about 4 s; cut at its end, only the holder's work is left.
    const w = await measureWindow(cluster.instances[0] as string, cluster, s, {
      connections: 20,
      warmupSeconds: 0.1,
      windowSeconds: 0.4,
      params: { workMs: 250 },
    });
    console.log(
      `[bench] a window of 20 waiters on 250 ms holds: ${w.goodput}/s sold, ${w.refusedPerSec}/s refused in the span; drain ${w.time.drain} ms (bound 2000)`,
    );
    expect({ refusedPerSec: w.refusedPerSec, check: w.check }).toEqual({ refusedPerSec: 0, check: { oversold: 0, unanswered: 0 } });
    expect(w.goodput).toBeGreaterThan(0);
    expect(w.time.drain).toBeLessThan(2_000);
  });

  it("runs the course's line by default, in the catalog's order, and every strategy with --all", async () => {
    const catalog = await fetchCatalog(sharedCluster().instances[0] as string);
    const line = selectStrategies(catalog, chosenStrategies(parseBenchArgs([]))).map((s) => s.name);
    expect(line).toEqual(COURSE_LINE);
    expect(selectStrategies(catalog, chosenStrategies(parseBenchArgs(['--all'])))).toEqual(catalog);
    console.log(`[bench] default: the course's line, ${line.length} of ${catalog.length} strategies; --all runs ${catalog.length}`);
  });
});
