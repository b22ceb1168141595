// A chaos run's report: <out>/<stamp>-chaos.{json,md,html}, beside the fault lab's. The JSON keeps
// the whole history, so the checker can be run again on it.
import { writeReportFiles, type WrittenFiles } from '../../bench/output.js';
import { reportCss } from '../../bench/report-style.js';
import { escapeXml as esc } from '../../bench/svg.js';
import { machineInfo } from '../report/report.js';
import type { StrategyVerdict } from './checker.js';
import { faultLine } from './fault-line.js';
import type { ChaosHistory } from './history.js';
import type { ChaosResult, ChaosOptions } from './run.js';
import { renderTimeline } from './timeline.js';

export interface ChaosReport extends ChaosResult {
  stamp: string;
  date: string;
  seconds: number;
  machine: ReturnType<typeof machineInfo>;
  options: Omit<ChaosOptions, 'strategies'> & { strategies: string[] };
  rerun: string;
}

/** "hosts,replicated": the topology a history was run on (histories before the hosts topology have no `hosts`). */
export function topologyOf(h: Pick<ChaosHistory, 'replicated' | 'hosts'>): string {
  return [...(h.hosts ? ['hosts'] : []), ...(h.replicated ? ['replicated'] : [])].join(',') || 'single';
}

export function faultsByKind(r: Pick<ChaosResult, 'history'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of r.history.faults) out[f.kind] = (out[f.kind] ?? 0) + 1;
  return out;
}

const HEAD = ['strategy', 'store', 'fenced', 'requests', 'sold', 'deducted', 'oversold', 'unknown', 'refused', 'recover ms', 'verdict'];

/** `brief`: each problem without its list of request ids (the docs' tables; the report keeps them). */
function verdictText(v: StrategyVerdict, brief = false): string {
  const problems = (brief ? v.problems.map((p) => p.replace(/: [^:]*\.[^:]*$/, '')) : v.problems).join('; ');
  if (v.exact) return v.notJudged ? `not judged: ${v.notJudged}` : 'exact';
  if (v.asCatalogSays) return `reported (${v.allowedBy ?? 'catalog: holderPause oversells'}): ${problems}`;
  return `FAILED: ${problems}`;
}

function cells(v: StrategyVerdict, boundMs: number, brief = false): string[] {
  const recover = v.recoveryMs === null ? `never (> ${boundMs})` : String(v.recoveryMs);
  return [v.strategy, v.store, v.fenced ? 'yes' : 'no', String(v.requests), String(v.sold), String(v.deducted), String(v.oversold), String(v.unknown), String(v.refused), recover, verdictText(v, brief)];
}

export function summaryLines(r: ChaosReport): string[] {
  const kinds = Object.entries(faultsByKind(r)).map(([k, n]) => `${k} ${n}`).join(', ');
  return [
    `${(r.options.seconds / 60).toFixed(1)} min of load, seed ${r.options.seed}${topologyOf(r.history) === 'single' ? '' : `, ${topologyOf(r.history)} topology`}; ${r.history.faults.length} faults injected (${kinds}); ${r.history.requests.length} requests checked${r.skipped ? `, ${r.skipped} sends skipped at the in-flight cap` : ''}.`,
    `Load: ${r.options.load.rate} requests/s through nginx (at most ${r.options.load.maxInFlight} in flight), one strategy at a time, each turn's requests over before the next turn; a fixed modest rate, well under each strategy's goodput.`,
    `Ledger: ${Object.entries(r.ledger).map(([store, l]) => `${store} deducted ${l.deducted}, GET /sales recorded ${l.recorded}`).join('; ')}.`,
    `Recovery: each strategy's first 200 after the last heal (or after the previous strategy's), bound ${r.history.recoveryBoundMs} ms. Left held after every heal: ${r.verdict.leftovers.length === 0 ? 'nothing' : r.verdict.leftovers.join(', ')}.`,
    // Reports written before the checker said how much it saw have no such list: no line for them.
    ...(r.verdict.notJudged === undefined ? [] : [`Not judged (too little seen for "exact" to mean anything): ${r.verdict.notJudged.length > 0 ? r.verdict.notJudged.join(', ') : 'none'}.`]),
    `Servers that exited with no fault on them: ${r.history.crashes.length === 0 ? 'none' : r.history.crashes.map((c) => `${c.target} at ${(c.atMs / 1000).toFixed(1)} s`).join(', ')}.`,
    r.verdict.ok ? 'Verdict: every check holds.' : `Verdict: ${r.verdict.failures.length} failure(s): ${r.verdict.failures.join(' | ')}`,
    `Rerun: ${r.rerun}`,
  ];
}

export function renderChaosTable(r: ChaosReport, brief = false): string {
  const rows = r.verdict.strategies.map((v) => `| ${cells(v, r.history.recoveryBoundMs, brief).join(' | ')} |`);
  return [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...rows].join('\n');
}

function renderMarkdown(r: ChaosReport): string {
  const faults = r.history.faults.map((f) => `- ${faultLine(f)}`);
  return `# stocklab chaos ${r.stamp}\n\n${summaryLines(r).join('\n\n')}\n\n${renderChaosTable(r)}\n\n## Faults\n\n${faults.join('\n')}\n`;
}

function renderHtml(r: ChaosReport): string {
  const rows = r.verdict.strategies
    .map((v) => `<tr>${cells(v, r.history.recoveryBoundMs).map((c, i) => `<td${i === HEAD.length - 1 ? ` class="${v.exact && !v.notJudged ? 'good' : v.exact || v.asCatalogSays ? 'warn' : 'bad'}" style="text-align:left;white-space:normal"` : ''}>${esc(c)}</td>`).join('')}</tr>`)
    .join('\n');
  const faults = r.history.faults.map((f) => `<li>${esc(faultLine(f))}</li>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab chaos ${esc(r.stamp)}</title>
<style>${reportCss(1300)}</style></head>
<body>
<h1>stocklab: chaos (a random nemesis under a steady load)</h1>
${summaryLines(r).map((l) => `<p class="${l.startsWith('Verdict: every') || !l.startsWith('Verdict') ? 'meta' : 'bad'}">${esc(l)}</p>`).join('\n')}
${renderTimeline(r.history)}
<h2>Per strategy</h2>
<table><tr>${HEAD.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>
${rows}</table>
<h2>Faults</h2>
<ul>${faults.join('\n')}</ul>
</body></html>
`;
}

export function writeChaosReport(r: ChaosReport, dir: string): WrittenFiles {
  return writeReportFiles(dir, `${r.stamp}-chaos`, { data: r, md: renderMarkdown(r), html: renderHtml(r) });
}
