// The soak's report: <out>/<stamp>-soak.{json,md,html}; the HTML draws each resource as a sparkline beside its slope.
import { bilingualPage } from '../../report/lang-switch.js';
import { writeReportFiles, type WrittenFiles } from '../../report/output.js';
import { reportCss } from '../../report/report-style.js';
import { escapeXml as esc } from '../../report/svg.js';
import type { machineInfo } from '../report/report.js';
import type { SoakResult } from './run.js';
import type { Judgeability, SlopeRow } from './verdict.js';
import { SOAK_COLUMNS, SOAK_WORDS, soakText } from './words.js';
import type { Lang } from '../../src/lang.js';

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

const HEAD = SOAK_COLUMNS;

function cells(r: SlopeRow, lang: Lang): string[] {
  const w = SOAK_WORDS[lang];
  return [
    r.resource,
    r.first.toFixed(1),
    r.last.toFixed(1),
    r.perMinute.toFixed(2),
    r.bound ? String(r.bound.perMinute) : '—',
    r.bound ? String(r.bound.growth) : '—',
    r.bound === undefined ? w.printed : r.judged === false ? w.notJudged : r.grows ? w.grows : w.flat,
  ];
}

export function summaryLines(r: SoakReport, lang: Lang = 'en'): string[] {
  const w = SOAK_WORDS[lang];
  const per = r.verdict.strategies.map((v) => w.soldDeducted(v.strategy, v.sold, v.deducted, v.oversold)).join(w.and);
  return [
    w.load(r.options.minutes, +(r.options.turnMs / 1000).toFixed(1), r.requests, r.options.sampleEveryMs / 1000),
    w.perStrategy(per),
    growthRule(r.growth, lang),
    r.ok ? w.verdictOk(r.growth?.judged === false ? w.growthTooShort : w.nothingGrows) : w.verdictFailed(r.failures.map((f) => soakText(f, lang)).join(w.or)),
  ];
}

/** How growth was judged, or why it was not (a report from before the soak could say so keeps its own rule). */
function growthRule(growth: Judgeability | undefined, lang: Lang): string {
  const w = SOAK_WORDS[lang];
  if (growth === undefined) return w.oldRule;
  if (!growth.judged) return w.tooShort(soakText(growth.why, lang), growth.leastMinutes);
  return w.rule((growth.fromMs / 60_000).toFixed(1), growth.windowMs / 1000, growth.windows);
}

export function renderSlopeTable(r: SoakReport, lang: Lang = 'en'): string {
  const head = HEAD.map((h) => SOAK_WORDS[lang].columns[h]);
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...r.slopes.map((s) => `| ${cells(s, lang).join(' | ')} |`)].join('\n');
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

/** The report in one language: the summary, then each resource's slope beside its sparkline. */
function htmlBody(r: SoakReport, lang: Lang): string {
  const w = SOAK_WORDS[lang];
  const rows = r.slopes
    .map(
      (s) =>
        `<tr>${cells(s, lang)
          .map((c, i) => `<td${i === HEAD.length - 1 ? ` class="${s.grows ? 'bad' : s.judged === false ? 'warn' : 'good'}"` : ''}>${esc(c)}</td>`)
          .join('')}<td>${sparkline(r, s.resource)}</td></tr>`,
    )
    .join('\n');
  const lines = summaryLines(r, lang);
  return `<h1>${esc(w.html.title)}</h1>
${lines.map((l, i) => `<p class="${i === lines.length - 1 && !r.ok ? 'bad' : 'meta'}">${esc(l)}</p>`).join('\n')}
<table><tr>${HEAD.map((h) => `<th>${esc(w.columns[h])}</th>`).join('')}<th>${esc(w.overTheRun)}</th></tr>
${rows}</table>
${r.sampleErrors.length ? `<p class="meta">${esc(w.html.samplesNotRead(r.sampleErrors.slice(0, 5).join('; ')))}</p>` : ''}`;
}

export function renderSoakHtml(r: SoakReport): string {
  const title = { en: SOAK_WORDS.en.html.pageTitle(r.stamp), zh: SOAK_WORDS.zh.html.pageTitle(r.stamp) };
  return bilingualPage(title, reportCss(1300), (lang) => htmlBody(r, lang));
}

/** The JSON, the HTML (both languages) and the markdown in `lang`. */
export function writeSoakReport(r: SoakReport, dir: string, lang: Lang = 'en'): WrittenFiles {
  return writeReportFiles(dir, `${r.stamp}-soak`, {
    data: r,
    md: `# stocklab soak ${r.stamp}\n\n${summaryLines(r, lang).join('\n\n')}\n\n${renderSlopeTable(r, lang)}\n`,
    html: renderSoakHtml(r),
  });
}
