// The fault table as markdown: what stdout shows and what the .md file holds (in --lang's language).
import { header } from '../../report/bench/format.js';
import { markdownTable } from '../../report/table.js';
import type { Lang } from '../../src/lang.js';
import { COLUMNS, rowCells } from './cells.js';
import type { FaultReport } from './report.js';
import { FAULT_WORDS } from './words.js';
import { runMachine } from '../../report/bench/words.js';

export function methodText(report: FaultReport, lang: Lang = 'en'): string {
  const o = report.options;
  return FAULT_WORDS[lang].method({
    scenarios: o.scenarios.join(', '),
    ...(o.strategies && { strategies: o.strategies.join(', ') }),
    initial: o.sizes.initial,
    sell: o.sizes.sell,
    inFlight: o.sizes.inFlight,
    ...runMachine(report),
  });
}

/** The table's header in one language. */
export const faultHeader = (lang: Lang): string[] => header(COLUMNS, FAULT_WORDS[lang].columns);

/** The catalog check's verdict, one line, then each mismatch. */
export function catalogText(report: FaultReport, lang: Lang = 'en'): string[] {
  const w = FAULT_WORDS[lang];
  const n = report.catalogDeclarations;
  if (report.catalogMismatches.length === 0) return [w.catalogAgrees(n)];
  return [w.catalogDisagrees(n), ...report.catalogMismatches.map((m) => `- ${m}`)];
}

/** What stdout shows: the heading, the method, the table, how to read it and the catalog check. */
export function renderTable(report: FaultReport, lang: Lang = 'en'): string {
  const w = FAULT_WORDS[lang];
  const parts = [
    `## ${w.heading(report.stamp)}`,
    '',
    methodText(report, lang),
    '',
    markdownTable(faultHeader(lang), report.rows.map(rowCells)),
    '',
    ...w.definitions.map((d) => `- ${d}`),
    '',
    ...catalogText(report, lang),
  ];
  return parts.join('\n') + '\n';
}

/** The .md file: the table, then each scenario's description, what was not as expected and every row's details. */
export function renderMarkdown(report: FaultReport, lang: Lang = 'en'): string {
  const w = FAULT_WORDS[lang];
  const failed = report.rows.filter((r) => !r.asExpected);
  const parts = [
    renderTable(report, lang),
    `### ${w.scenarios}`,
    '',
    ...report.scenarios.map((s) => `- **${s.name}** (${s.seconds.toFixed(0)} s): ${s.description}${s.error ? ` **${w.failed}: ${s.error}**` : ''}`),
    '',
    `### ${w.notAsExpected(failed.length)}`,
    '',
    ...(failed.length === 0
      ? [w.noneNotAsExpected]
      : failed.map((r) => `- ${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store}: ${r.details.join('; ')}`)),
    '',
    `### ${w.details}`,
    '',
    ...report.rows.map(
      (r) =>
        `- ${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store} (${(r.ms / 1000).toFixed(1)} s): ${w.answers} ${JSON.stringify(r.answers)}; ${r.details.join('; ')}`,
    ),
  ];
  return parts.join('\n') + '\n';
}
