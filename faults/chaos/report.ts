// A chaos run's report: <out>/<stamp>-chaos.{json,md,html}, beside the fault lab's. The JSON keeps
// the whole history, so the checker can be run again on it.
import { bilingualPage } from '../../report/lang-switch.js';
import { writeReportFiles, type WrittenFiles } from '../../report/output.js';
import { reportCss } from '../../report/report-style.js';
import { escapeXml as esc } from '../../report/svg.js';
import type { machineInfo } from '../report/report.js';
import type { StrategyVerdict } from './checker.js';
import { faultLine } from './fault-line.js';
import type { ChaosHistory } from './history.js';
import type { ChaosResult, ChaosOptions } from './run.js';
import { renderTimeline } from './timeline.js';
import { CHAOS_COLUMNS, CHAOS_WORDS, chaosText } from './words.js';
import type { Lang } from '../../src/lang.js';

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

const HEAD = CHAOS_COLUMNS;

/** `brief`: each problem without its list of request ids (the docs' tables; the report keeps them). */
function verdictText(v: StrategyVerdict, brief: boolean, lang: Lang): string {
  const w = CHAOS_WORDS[lang];
  const problems = (brief ? v.problems.map((p) => p.replace(/: [^:]*\.[^:]*$/, '')) : v.problems).map((p) => chaosText(p, lang)).join(w.then);
  if (v.exact) return v.notJudged ? w.notJudged(chaosText(v.notJudged, lang)) : w.exact;
  if (v.asCatalogSays) return w.reported(chaosText(v.allowedBy ?? 'catalog: holderPause oversells', lang), problems);
  return w.failed(problems);
}

function cells(v: StrategyVerdict, boundMs: number, brief: boolean, lang: Lang): string[] {
  const w = CHAOS_WORDS[lang];
  const recover = v.recoveryMs === null ? w.never(boundMs) : String(v.recoveryMs);
  return [
    v.strategy,
    v.store,
    v.fenced ? w.yes : w.no,
    String(v.requests),
    String(v.sold),
    String(v.deducted),
    String(v.oversold),
    String(v.unknown),
    String(v.refused),
    recover,
    verdictText(v, brief, lang),
  ];
}

export function summaryLines(r: ChaosReport, lang: Lang = 'en'): string[] {
  const w = CHAOS_WORDS[lang];
  const kinds = Object.entries(faultsByKind(r))
    .map(([k, n]) => w.kind(k, n))
    .join(w.and);
  const topology = topologyOf(r.history);
  return [
    w.load(
      (r.options.seconds / 60).toFixed(1),
      r.options.seed,
      topology === 'single' ? '' : w.topology(topology),
      r.history.faults.length,
      kinds,
      r.history.requests.length,
      r.skipped,
    ),
    w.rate(r.options.load.rate, r.options.load.maxInFlight),
    w.ledger(
      Object.entries(r.ledger)
        .map(([store, l]) => w.ledgerStore(store, l.deducted, l.recorded))
        .join(w.then),
    ),
    w.recovery(r.history.recoveryBoundMs, r.verdict.leftovers.length === 0 ? w.nothing : r.verdict.leftovers.join(w.and)),
    // Reports written before the checker said how much it saw have no such list: no line for them.
    ...(r.verdict.notJudged === undefined ? [] : [w.notJudgedLine(r.verdict.notJudged.length > 0 ? r.verdict.notJudged.join(w.and) : w.none)]),
    w.crashes(r.history.crashes.length === 0 ? w.none : r.history.crashes.map((c) => w.crashAt(c.target, (c.atMs / 1000).toFixed(1))).join(w.and)),
    r.verdict.ok ? w.verdictOk : w.verdictFailed(r.verdict.failures.length, r.verdict.failures.map((f) => chaosText(f, lang)).join(w.or)),
    w.rerun(r.rerun),
  ];
}

export function renderChaosTable(r: ChaosReport, brief = false, lang: Lang = 'en'): string {
  const head = HEAD.map((h) => CHAOS_WORDS[lang].columns[h]);
  const rows = r.verdict.strategies.map((v) => `| ${cells(v, r.history.recoveryBoundMs, brief, lang).join(' | ')} |`);
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows].join('\n');
}

function renderMarkdown(r: ChaosReport, lang: Lang): string {
  const faults = r.history.faults.map((f) => `- ${faultLine(f, lang)}`);
  return `# stocklab chaos ${r.stamp}\n\n${summaryLines(r, lang).join('\n\n')}\n\n${renderChaosTable(r, false, lang)}\n\n## ${CHAOS_WORDS[lang].html.faults}\n\n${faults.join('\n')}\n`;
}

/** The report in one language: the summary, the timeline, the verdict per strategy and every fault. */
function htmlBody(r: ChaosReport, lang: Lang): string {
  const w = CHAOS_WORDS[lang];
  const rows = r.verdict.strategies
    .map(
      (v) =>
        `<tr>${cells(v, r.history.recoveryBoundMs, false, lang)
          .map(
            (c, i) =>
              `<td${i === HEAD.length - 1 ? ` class="${v.exact && !v.notJudged ? 'good' : v.exact || v.asCatalogSays ? 'warn' : 'bad'}" style="text-align:left;white-space:normal"` : ''}>${esc(c)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
  const faults = r.history.faults.map((f) => `<li>${esc(faultLine(f, lang))}</li>`);
  const lines = summaryLines(r, lang);
  // the verdict is the line before the rerun command
  const verdictAt = lines.length - 2;
  return `<h1>${esc(w.html.title)}</h1>
${lines.map((l, i) => `<p class="${i === verdictAt && !r.verdict.ok ? 'bad' : 'meta'}">${esc(l)}</p>`).join('\n')}
${renderTimeline(r.history, lang)}
<h2>${esc(w.html.perStrategy)}</h2>
<table><tr>${HEAD.map((h) => `<th>${esc(w.columns[h])}</th>`).join('')}</tr>
${rows}</table>
<h2>${esc(w.html.faults)}</h2>
<ul>${faults.join('\n')}</ul>`;
}

export function renderChaosHtml(r: ChaosReport): string {
  const title = { en: CHAOS_WORDS.en.html.pageTitle(r.stamp), zh: CHAOS_WORDS.zh.html.pageTitle(r.stamp) };
  return bilingualPage(title, reportCss(1300), (lang) => htmlBody(r, lang));
}

/** The JSON, the HTML (both languages) and the markdown in `lang`. */
export function writeChaosReport(r: ChaosReport, dir: string, lang: Lang = 'en'): WrittenFiles {
  return writeReportFiles(dir, `${r.stamp}-chaos`, { data: r, md: renderMarkdown(r, lang), html: renderChaosHtml(r) });
}
