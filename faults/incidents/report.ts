// The gallery's table, in either language: one row per incident, each trial's version and what it
// showed. Written as <out>/<stamp>-incidents.{json,md,html}; the HTML carries both languages.
import { writeReportFiles, type WrittenFiles } from '../../report/output.js';
import { bilingualPage } from '../../report/lang-switch.js';
import { escapeXml } from '../../report/svg.js';
import { markdownTable } from '../../report/table.js';
import type { Lang } from '../../src/lang.js';
import type { FaultReport } from '../report/report.js';
import type { IncidentRow, Trial } from './incident.js';

export interface IncidentReport {
  stamp: string;
  date: string;
  seconds: number;
  machine: FaultReport['machine'];
  rows: IncidentRow[];
}

const WORDS = {
  en: {
    title: 'stocklab incident gallery',
    header: ['incident', 'reported', 'pinned version', 'fixed version', "stocklab's lock, same fault"],
    yes: 'reproduced',
    no: 'not reproduced',
    failed: 'did not run',
    none: 'no fixed release',
    symptom: 'Reported',
    built: 'Built',
    intro: (r: IncidentReport) =>
      `${r.rows.length} incidents from the lock libraries' own issue trackers, each built by sequencing on this machine's servers (${r.machine.nproc} cores, Node ${r.machine.node}), ${r.date}, ${Math.round(r.seconds)} s. Each trial says whether the reported symptom showed, and what was measured.`,
  },
  zh: {
    title: 'stocklab 事故陈列',
    header: ['事故', '报告出处', '锁定版本', '修复版本', 'stocklab 的同类锁，同样的故障'],
    yes: '复现',
    no: '未复现',
    failed: '未能运行',
    none: '没有已发布的修复',
    symptom: '报告',
    built: '构造',
    intro: (r: IncidentReport) =>
      `${r.rows.length} 个事故，取自各个锁库自己的 issue，每个都在本机的服务器上按顺序构造（${r.machine.nproc} 核，Node ${r.machine.node}），${r.date}，用时 ${Math.round(r.seconds)} s。每次试验都说明报告中的症状是否出现，以及实测了什么。`,
  },
} as const;

type Tried = IncidentRow['affected'];

function verdict(t: Tried | undefined, lang: Lang): string {
  const w = WORDS[lang];
  if (!t) return w.none;
  if ('error' in t) return `${t.version}: **${w.failed}**`;
  return `${t.version}: **${t.reproduced ? w.yes : w.no}**`;
}

/** What a trial measured (or the error it met), one line. */
function measuredText(t: Tried, lang: Lang): string {
  if ('error' in t) return `${t.version}: ${WORDS[lang].failed}: ${t.error}`;
  const trial: Trial = t;
  return `${trial.version}: ${trial.measured[lang]}`;
}

function cells(row: IncidentRow, lang: Lang): string[] {
  const { repo, refs, fixedBy } = row.reported;
  return [
    `${row.id} (${row.library})`,
    `${repo} ${refs.join(', ')}${fixedBy ? `${lang === 'zh' ? '；' : '; '}${fixedBy[lang]}` : ''}`,
    verdict(row.affected, lang),
    verdict(row.fixed, lang),
    row.lab.map((t) => verdict(t, lang)).join('<br>'),
  ];
}

export function renderIncidentTable(report: IncidentReport, lang: Lang): string {
  return markdownTable(
    WORDS[lang].header,
    report.rows.map((r) => cells(r, lang)),
  );
}

/** Per incident: the symptom as reported, how the lab built it, and what each trial measured. */
function incidentDetails(report: IncidentReport, lang: Lang): string {
  const w = WORDS[lang];
  return report.rows
    .map((r) => {
      const trials = [r.affected, ...(r.fixed ? [r.fixed] : []), ...r.lab];
      return [
        `**${r.id}**`,
        '',
        `- ${w.symptom}: ${r.symptom[lang]}`,
        `- ${w.built}: ${r.built[lang]}`,
        ...trials.map((t) => `- ${measuredText(t, lang)}`),
      ].join('\n');
    })
    .join('\n\n');
}

/** The table and the details, as stdout, the .md and the docs' block show them. */
export function renderIncidentBody(report: IncidentReport, lang: Lang): string {
  return `${renderIncidentTable(report, lang)}\n\n${incidentDetails(report, lang)}`;
}

export function renderIncidentMarkdown(report: IncidentReport, lang: Lang): string {
  const w = WORDS[lang];
  return `# ${w.title} ${report.stamp}\n\n${w.intro(report)}\n\n${renderIncidentBody(report, lang)}\n`;
}

/** docs/incidents.md's generated block: which run, then the body. */
export function incidentDocBlock(report: IncidentReport, file: string, lang: Lang): string {
  return `${lang === 'zh' ? `来自 \`${file}\`（\`npm run faults -- --scenario incidents\`）：` : `From \`${file}\` (\`npm run faults -- --scenario incidents\`): `}${WORDS[lang].intro(report)}\n\n${renderIncidentBody(report, lang)}`;
}

const CSS =
  'body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:90rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top;text-align:left}';

export function writeIncidentReport(report: IncidentReport, dir: string, lang: Lang): WrittenFiles {
  const html = bilingualPage({ en: `${WORDS.en.title} ${report.stamp}`, zh: `${WORDS.zh.title} ${report.stamp}` }, CSS, (l) => {
    const head = `<tr>${WORDS[l].header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`;
    const strong = (c: string) =>
      escapeXml(c)
        .replace(/&lt;br&gt;/g, '<br>')
        .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>');
    const body = report.rows
      .map(
        (r) =>
          `<tr>${cells(r, l)
            .map((c) => `<td>${strong(c)}</td>`)
            .join('')}</tr>`,
      )
      .join('\n');
    const details = report.rows
      .map(
        (r) =>
          `<h2>${escapeXml(r.id)}</h2><ul><li>${escapeXml(`${WORDS[l].symptom}: ${r.symptom[l]}`)}</li><li>${escapeXml(`${WORDS[l].built}: ${r.built[l]}`)}</li>${[r.affected, ...(r.fixed ? [r.fixed] : []), ...r.lab].map((t) => `<li>${escapeXml(measuredText(t, l))}</li>`).join('')}</ul>`,
      )
      .join('\n');
    return `<h1>${escapeXml(WORDS[l].title)}</h1><p>${escapeXml(WORDS[l].intro(report))}</p><table>${head}${body}</table>${details}`;
  });
  return writeReportFiles(dir, `${report.stamp}-incidents`, { data: report, md: renderIncidentMarkdown(report, lang), html });
}
