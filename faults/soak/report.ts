// The soak's report: <out>/<stamp>-soak.{json,md,html}; the HTML draws each resource as a sparkline beside its slope.
import { writeReportFiles, type WrittenFiles } from '../../bench/output.js';
import { reportCss } from '../../bench/report-style.js';
import { escapeXml as esc } from '../../bench/svg.js';
import { machineInfo } from '../report/report.js';
import type { SoakResult } from './run.js';
import type { Judgeability, SlopeRow } from './verdict.js';

export interface SoakReport extends Omit<SoakResult, 'history' | 'growth' | 'turnMs'> {
  /** Absent in reports written before the soak said whether it could judge growth. */
  growth?: Judgeability;
  stamp: string;
  date: string;
  seconds: number;
  machine: ReturnType<typeof machineInfo>;
  options: { minutes: number; strategies: string[]; sampleEveryMs: number; turnMs: number };
  requests: number;
}

const HEAD = ['resource', 'first (after warm-up)', 'last', 'slope /min', 'bound /min', 'growth bound', 'verdict'];

function cells(r: SlopeRow): string[] {
  return [r.resource, r.first.toFixed(1), r.last.toFixed(1), r.perMinute.toFixed(2), r.bound ? String(r.bound.perMinute) : '—', r.bound ? String(r.bound.growth) : '—', r.bound === undefined ? 'printed' : r.judged === false ? 'not judged' : r.grows ? 'GROWS' : 'flat'];
}

export function summaryLines(r: SoakReport): string[] {
  const per = r.verdict.strategies.map((v) => `${v.strategy} ${v.sold}/${v.deducted}${v.oversold ? ` OVERSOLD ${v.oversold}` : ''}`).join(', ');
  return [
    `${r.options.minutes} min of load at about 70 % of each strategy's goodput (measured first, ${'2 s'} with 16 clients), the strategies in turns of ${+(r.options.turnMs / 1000).toFixed(1)} s; ${r.requests} requests; samples every ${r.options.sampleEveryMs / 1000} s.`,
    `Sold/deducted per strategy: ${per}.`,
    growthRule(r.growth),
    r.ok ? `Verdict: nothing oversold, every answer documented, ${r.growth?.judged === false ? 'growth too short to judge' : 'nothing keeps growing'}.` : `Verdict: ${r.failures.join(' | ')}`,
  ];
}

/** How growth was judged, or why it was not (a report from before the soak could say so keeps its own rule). */
function growthRule(growth: Judgeability | undefined): string {
  if (growth === undefined) return 'A resource keeps growing when its least-squares slope (after the first third of the samples) is above its bound and it grew by more than the growth bound.';
  if (!growth.judged) return `Growth: too short to judge: ${growth.why}. A run of at least ${growth.leastMinutes} min (--minutes ${growth.leastMinutes}) can judge it.`;
  return `A resource keeps growing when, after the warm-up (every strategy's first turn, ${(growth.fromMs / 60_000).toFixed(1)} min), the least value in each ${growth.windowMs / 1000} s window (${growth.windows} windows) rises with a least-squares slope above its bound and by more than its growth bound.`;
}

export function renderSlopeTable(r: SoakReport): string {
  return [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...r.slopes.map((s) => `| ${cells(s).join(' | ')} |`)].join('\n');
}

function sparkline(r: SoakReport, resource: string): string {
  const pts = r.samples.flatMap((s) => (s.values[resource] === undefined ? [] : [[s.t, s.values[resource]!] as const]));
  if (pts.length < 2) return '';
  const [w, h] = [220, 28];
  const tMax = Math.max(...pts.map((p) => p[0]));
  const [vMin, vMax] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
  const xy = pts.map(([t, v]) => `${((t / (tMax || 1)) * w).toFixed(1)},${(h - 2 - ((v - vMin) / (vMax - vMin || 1)) * (h - 4)).toFixed(1)}`);
  return `<svg width="${w}" height="${h}"><polyline fill="none" stroke="#3b7dd8" stroke-width="1.5" points="${xy.join(' ')}"/></svg>`;
}

function renderHtml(r: SoakReport): string {
  const rows = r.slopes.map((s) => `<tr>${cells(s).map((c, i) => `<td${i === HEAD.length - 1 ? ` class="${s.grows ? 'bad' : s.judged === false ? 'warn' : 'good'}"` : ''}>${esc(c)}</td>`).join('')}<td>${sparkline(r, s.resource)}</td></tr>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab soak ${esc(r.stamp)}</title><style>${reportCss(1300)}</style></head>
<body><h1>stocklab: soak</h1>
${summaryLines(r).map((l) => `<p class="${l.startsWith('Verdict') && !r.ok ? 'bad' : 'meta'}">${esc(l)}</p>`).join('\n')}
<table><tr>${HEAD.map((h) => `<th>${esc(h)}</th>`).join('')}<th>over the run</th></tr>
${rows}</table>
${r.sampleErrors.length ? `<p class="meta">Samples not read: ${esc(r.sampleErrors.slice(0, 5).join('; '))}</p>` : ''}
</body></html>
`;
}

export function writeSoakReport(r: SoakReport, dir: string): WrittenFiles {
  return writeReportFiles(dir, `${r.stamp}-soak`, { data: r, md: `# stocklab soak ${r.stamp}\n\n${summaryLines(r).join('\n\n')}\n\n${renderSlopeTable(r)}\n`, html: renderHtml(r) });
}
