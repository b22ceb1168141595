// Writes one run as <out>/<stamp>.{json,md,html}, as the bench writes its own.
import { writeReportFiles, type WrittenFiles } from '../../report/output.js';
import { renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import type { FaultReport } from './report.js';
import type { Lang } from '../../src/lang.js';

/** The .md in `lang`; the .html carries both languages. */
export function writeFaultReport(report: FaultReport, dir: string, lang: Lang = 'en'): WrittenFiles {
  return writeReportFiles(dir, report.stamp, { data: report, md: renderMarkdown(report, lang), html: renderHtml(report) });
}
