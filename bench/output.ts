// Writes one bench's results as bench/results/<stamp>.{json,md,html}.
import fs from 'node:fs';
import path from 'node:path';
import { renderHtml } from './html.js';
import type { BenchReport } from './report.js';
import { renderMarkdown } from './table.js';

export interface WrittenFiles {
  json: string;
  md: string;
  html: string;
}

export function writeReport(report: BenchReport, dir: string): WrittenFiles {
  fs.mkdirSync(dir, { recursive: true });
  const base = path.resolve(dir, report.stamp);
  const files: WrittenFiles = { json: `${base}.json`, md: `${base}.md`, html: `${base}.html` };
  fs.writeFileSync(files.json, JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(files.md, renderMarkdown(report));
  fs.writeFileSync(files.html, renderHtml(report));
  return files;
}
