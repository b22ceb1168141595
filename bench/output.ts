// Writes one bench's results as bench/results/<stamp>.{json,md,html}.
import fs from 'node:fs';
import path from 'node:path';
import { renderHtml } from './html.js';
import type { BenchReport } from './report.js';
import { renderMarkdown } from './table.js';
import type { Lang } from '../src/lang.js';

export interface WrittenFiles {
  json: string;
  md: string;
  html: string;
}

/** The .md in `lang`; the .html carries both languages. */
export function writeReport(report: BenchReport, dir: string, lang: Lang = 'en'): WrittenFiles {
  return writeReportFiles(dir, report.stamp, { data: report, md: renderMarkdown(report, lang), html: renderHtml(report) });
}

/** Writes one report as <dir>/<stamp>.{json,md,html} (the bench's and the fault lab's). */
export function writeReportFiles(dir: string, stamp: string, report: { data: unknown; md: string; html: string }): WrittenFiles {
  fs.mkdirSync(dir, { recursive: true });
  const base = path.resolve(dir, stamp);
  const files: WrittenFiles = { json: `${base}.json`, md: `${base}.md`, html: `${base}.html` };
  fs.writeFileSync(files.json, JSON.stringify(report.data, null, 2) + '\n');
  fs.writeFileSync(files.md, report.md);
  fs.writeFileSync(files.html, report.html);
  return files;
}
