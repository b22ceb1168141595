// The reliability blocks of the docs, from chaos and soak runs' JSON (`npm run docs -- … --chaos F
// --soak F`): the README's one table of what the nemesis and the soak checked, and each run's own
// tables in docs/faults.md. The figures are the runs' own; nothing here is typed by hand.
import path from 'node:path';
import { faultsByKind, renderChaosTable, summaryLines as chaosSummary, topologyOf as historyTopology, type ChaosReport } from '../faults/chaos/report.js';
import { renderSlopeTable, summaryLines as soakSummary, type SoakReport } from '../faults/soak/report.js';
import { markdownTable } from './table.js';

export interface Run<T> {
  report: T;
  file: string;
}

const fileOf = (p: string) => path.relative(process.cwd(), path.resolve(p));
const minutes = (seconds: number) => (seconds / 60).toFixed(1);

const topologyOf = (r: ChaosReport): string => historyTopology(r.history);

/** "27 of 29 (2 not judged)": a strategy that saw too little is not counted as exact. */
function exactCell(v: readonly { exact: boolean; notJudged?: string }[]): string {
  const notJudged = v.filter((s) => s.notJudged !== undefined).length;
  return `${v.filter((s) => s.exact && s.notJudged === undefined).length} of ${v.length}${notJudged > 0 ? ` (${notJudged} not judged)` : ''}`;
}

function chaosCells(r: ChaosReport): string[] {
  const v = r.verdict.strategies;
  const reported = v.filter((s) => !s.exact && s.asCatalogSays);
  return [
    `chaos, ${topologyOf(r)}, seed ${r.options.seed}`,
    minutes(r.options.seconds),
    `${r.history.faults.length} (${Object.keys(faultsByKind(r)).length} kinds)`,
    String(r.history.requests.length),
    exactCell(v),
    reported.length === 0 ? 'none' : reported.map((s) => `${s.strategy} (${s.allowedBy ?? 'as the catalog says'})`).join('; '),
    r.verdict.ok ? 'every check holds' : `${r.verdict.failures.length} failed: ${r.verdict.failures.join('; ')}`,
  ];
}

function soakCells(r: SoakReport): string[] {
  const v = r.verdict.strategies;
  const growing = r.slopes.filter((s) => s.grows).map((s) => s.resource);
  return [
    'soak',
    String(r.options.minutes),
    'none',
    String(r.requests),
    exactCell(v),
    'none',
    r.ok ? (r.growth?.judged === false ? 'too short to judge growth' : 'nothing keeps growing') : growing.length > 0 ? `grows: ${growing.join(', ')}` : r.failures.join('; '),
  ];
}

const SUMMARY_COLUMNS = ['run', 'minutes', 'faults injected', 'requests checked', 'strategies exact', 'not exact, as allowed', 'verdict'];

export function reliabilityBlocks(chaos: readonly Run<ChaosReport>[], soak?: Run<SoakReport>): Map<string, string> {
  const blocks = new Map<string, string>();
  if (chaos.length === 0 && !soak) return blocks;
  const rows = [...chaos.map((c) => chaosCells(c.report)), ...(soak ? [soakCells(soak.report)] : [])];
  const sources = [...chaos.map((c) => `\`${c.report.rerun}\` (\`${fileOf(c.file)}\`)`), ...(soak ? [`\`npm run soak -- --minutes ${soak.report.options.minutes}\` (\`${fileOf(soak.file)}\`)`] : [])];
  blocks.set('reliability', [markdownTable(SUMMARY_COLUMNS, rows), '', `From ${sources.join(', ')}.`].join('\n'));
  if (chaos.length > 0) {
    const runs = chaos.map(({ report: r, file }) => [`### ${topologyOf(r)} topology, seed ${r.options.seed}, ${minutes(r.options.seconds)} min (\`${fileOf(file)}\`)`, '', ...chaosSummary(r).map((l) => `${l}\n`), renderChaosTable(r, true)].join('\n'));
    blocks.set('chaos-runs', runs.join('\n\n'));
  }
  if (soak) {
    blocks.set('soak-run', [`From \`${fileOf(soak.file)}\`:`, '', ...soakSummary(soak.report).map((l) => `${l}\n`), renderSlopeTable(soak.report)].join('\n'));
  }
  return blocks;
}
