// One short bench against the shared test cluster, through the same code as `npm run bench`:
// the JSON it writes must show `none` overselling and `sql-update` exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench } from '../bench/bench.js';
import { parseBenchArgs } from '../bench/options.js';
import { writeReport } from '../bench/output.js';
import type { BenchReport } from '../bench/report.js';
import { resolveTarget } from '../bench/target.js';
import { sharedCluster } from './support/cluster.js';

describe('npm run bench, end to end', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-bench-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('measures none overselling and sql-update exact, on one instance and three', async () => {
    const cluster = sharedCluster();
    // workMs widens the read-then-write window, so `none` oversells even on a quiet machine
    const opts = parseBenchArgs(['--strategies', 'none,sql-update', '--requests', '300', '--connections', '30', '--workMs', '3', '--maxSeconds', '20', '--out', out]);
    const lines: string[] = [];
    const report = await runBench(opts, resolveTarget(opts, {}, cluster), (l) => lines.push(l));
    const files = writeReport(report, out);

    const json = JSON.parse(fs.readFileSync(files.json, 'utf8')) as BenchReport;
    const pick = (s: string) => json.runs.filter((r) => r.strategy === s);
    expect(pick('none').map((r) => r.topology)).toEqual(['one', 'three']);
    for (const r of pick('none')) expect(r.oversold, `none ${r.topology}`).toBeGreaterThan(0);
    for (const r of pick('sql-update')) {
      expect(r.oversold, `sql-update ${r.topology}`).toBe(0);
      expect(r.ok).toBe(300);
      expect(r.left).toBe(r.initial - 300);
    }
    // mutex joins as the efficiency reference
    expect(pick('mutex').find((r) => r.topology === 'one')?.efficiency).toBe(1);
    expect(json.ceilings.map((c) => c.topology)).toEqual(['one', 'three']);
    expect(lines.some((l) => l.includes('none · 1 instance') && l.includes('OVERSOLD'))).toBe(true);
    expect(fs.readFileSync(files.md, 'utf8')).toContain('OVERSOLD');
    expect(fs.readFileSync(files.html, 'utf8')).toContain('<svg');
  });
});
