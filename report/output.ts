// Writes one report as <stamp>.{json,md,html}: the data, its table and its page, side by side.
import fs from 'node:fs';
import path from 'node:path';

export interface WrittenFiles {
  json: string;
  md: string;
  html: string;
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
