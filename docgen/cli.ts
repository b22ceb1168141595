// `npm run docs -- <bench or lab results .json> [<faults results .json>] [--command "…"]`: rewrites
// the generated blocks of the docs from those runs, each doc's in its own language (README.zh-CN.md's
// and docs/zh-CN/'s in Chinese, from the same figures), and draws the chart (docs.ts).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FaultReport } from '../faults/report/report.js';
import { benchCommand, CHART_FILE, docBlocks, DOCS_FLAGS, DOCS_USAGE, docFiles, docLang, resultsChart } from './docs.js';
import { LANGS } from '../src/lang.js';
import { fillBlocks } from './blocks.js';
import type { BenchReport } from '../report/bench/report.js';
import { reliabilityBlocks } from './reliability.js';
import { rampDocBlock, rampSummaryBlock } from '../report/bench/ramp-report.js';
import { RAMP_WORDS } from '../report/bench/ramp-words.js';
import type { RampReport } from '../report/bench/ramp-results.js';
import type { SweepReport } from '../report/bench/sweep-results.js';
import { sweepDocBlock, sweepLeaseBlock, sweepSummaryBlock } from '../report/bench/sweep-report.js';
import type { ChaosReport } from '../faults/chaos/report.js';
import type { SoakReport } from '../faults/soak/report.js';
import { incidentDocBlock, type IncidentReport } from '../faults/incidents/report.js';
import { parseFlags, runCli, UsageError } from '../src/cli/args.js';
import { labSpeedBlock, type LabRun } from './lab-speed.js';
import { windowSpanBlock } from './window-span.js';
import type { WindowSpanReport } from '../report/bench/window-span.js';

/** A run's JSON, gzipped or not (a chaos run's whole history is kept gzipped in docs/runs). */
function readJson<T>(file: string, has: string[]): T {
  const raw = fs.readFileSync(file);
  const data: unknown = JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8'));
  const missing = has.filter((k) => typeof data !== 'object' || data === null || !(k in data));
  if (missing.length > 0) throw new Error(`${file} is not a results file of that kind (no ${missing.join(', ')})`);
  return data as T;
}

runCli('docs', DOCS_USAGE, async () => {
  const { values, positionals } = parseFlags(process.argv.slice(2), DOCS_FLAGS, true);
  const [benchFile, faultsFile, ...rest] = positionals;
  if (!benchFile || rest.length > 0) throw new UsageError('expected one bench results file, and at most one faults results file');
  const bench = readJson<BenchReport>(benchFile, ['runs', 'catalog', 'ceilings', 'options']);
  const faults = faultsFile ? { report: readJson<FaultReport>(faultsFile, ['rows', 'options', 'scenarios']), file: faultsFile } : undefined;
  const lease = values.lease ? { report: readJson<BenchReport>(values.lease, ['runs', 'catalog', 'options']), file: values.lease } : undefined;
  const run = { report: bench, file: benchFile, command: values.command ?? benchCommand(bench) };
  const blocksIn = new Map(LANGS.map((lang) => [lang, docBlocks(run, faults, lease, lang)]));
  const blocks = blocksIn.get('en') ?? new Map<string, string>();
  const chaos = (values.chaos ?? []).map((file) => ({ report: readJson<ChaosReport>(file, ['history', 'verdict', 'options', 'rerun']), file }));
  const soak = values.soak ? { report: readJson<SoakReport>(values.soak, ['slopes', 'verdict', 'options']), file: values.soak } : undefined;
  for (const [lang, langBlocks] of blocksIn) for (const [name, body] of reliabilityBlocks(chaos, soak, lang)) langBlocks.set(name, body);
  if (values.ramp) {
    const report = readJson<RampReport>(values.ramp, ['results', 'strategies', 'steps']);
    const file = path.relative(process.cwd(), path.resolve(values.ramp));
    for (const [lang, langBlocks] of blocksIn) {
      const w = RAMP_WORDS[lang].docs;
      langBlocks.set('ramp', `${w.from(file)}${lang === 'zh' ? '：' : ': '}${rampDocBlock(report, lang)}`);
      langBlocks.set('ramp-summary', `${rampSummaryBlock(report, lang)}\n\n${w.from(file)}${w.shared}`);
    }
  }
  if (values.rtt) {
    const report = readJson<SweepReport>(values.rtt, ['rows', 'rtts', 'linkTimes']);
    const file = path.relative(process.cwd(), path.resolve(values.rtt));
    // the README's link follows its reader to their own results page
    const resultsLink = { en: 'docs/results.md#at-a-datacenters-round-trip', zh: 'docs/zh-CN/results.md#数据中心的往返时延下' } as const;
    for (const [lang, langBlocks] of blocksIn) {
      langBlocks.set('rtt-results', sweepDocBlock(report, file, lang));
      langBlocks.set('rtt-summary', sweepSummaryBlock(report, file, resultsLink[lang], lang));
    }
  }
  // docs/bench.md's two sweeps: the process line against the round trip, and RedLock's validity
  for (const [flag, block, render] of [
    ['rtt-line', 'rtt-line', sweepDocBlock],
    ['rtt-lease', 'rtt-lease', sweepLeaseBlock],
  ] as const) {
    const given = values[flag];
    if (!given) continue;
    const report = readJson<SweepReport>(given, ['rows', 'rtts', 'linkTimes']);
    const file = path.relative(process.cwd(), path.resolve(given));
    for (const [lang, langBlocks] of blocksIn) langBlocks.set(block, render(report, file, lang));
  }
  if (values.incidents) {
    const report = readJson<IncidentReport>(values.incidents, ['rows', 'machine', 'stamp']);
    const file = path.relative(process.cwd(), path.resolve(values.incidents));
    for (const [lang, langBlocks] of blocksIn) langBlocks.set('incidents', incidentDocBlock(report, file, lang));
  }
  if (values['lab-before'] || values['lab-after']) {
    if (!values['lab-before'] || !values['lab-after']) throw new UsageError('--lab-before and --lab-after go together');
    const [before, after] = [values['lab-before'], values['lab-after']].map((file) => ({
      report: readJson<BenchReport>(file, ['runs', 'catalog', 'options']),
      file: path.relative(process.cwd(), path.resolve(file)),
    })) as [LabRun, LabRun];
    for (const [lang, langBlocks] of blocksIn) langBlocks.set('lab-speed', labSpeedBlock(before, after, lang));
  }
  if (values['window-span']) {
    const report = readJson<WindowSpanReport>(values['window-span'], ['spans', 'cells', 'ratio']);
    const file = path.relative(process.cwd(), path.resolve(values['window-span']));
    for (const [lang, langBlocks] of blocksIn) langBlocks.set('window-span', windowSpanBlock(report, file, lang));
  }
  const root = process.cwd();
  const filled = new Set<string>();
  for (const file of docFiles(root)) {
    const before = fs.readFileSync(path.join(root, file), 'utf8');
    const after = fillBlocks(before, blocksIn.get(docLang(file)) ?? blocks);
    after.filled.forEach((n) => filled.add(n));
    if (after.text !== before) fs.writeFileSync(path.join(root, file), after.text);
    if (after.filled.length > 0) console.log(`${file}: ${after.filled.join(', ')}`);
  }
  fs.writeFileSync(path.join(root, CHART_FILE), resultsChart(bench));
  console.log(`${CHART_FILE}: goodput chart`);
  const unused = [...blocks.keys()].filter((n) => !filled.has(n));
  if (unused.length > 0) console.log(`no block in the docs for: ${unused.join(', ')}`);
  return 0;
});
