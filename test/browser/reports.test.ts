// The bench's, the fault lab's, the chaos run's and the soak's HTML reports in a real browser
// (chromium), opened from disk with no server: each shows Chinese to a zh browser and English to an
// en one, ?lang= overrides, and the switch changes the language in place. The reports are rendered
// from the runs the docs quote (a chaos or soak run's JSON is kept gzipped).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml as benchHtml } from '../../report/bench/html.js';
import type { BenchReport } from '../../report/bench/report.js';
import { renderHtml as faultHtml } from '../../faults/report/html.js';
import type { FaultReport } from '../../faults/report/report.js';
import { renderChaosHtml, type ChaosReport } from '../../faults/chaos/report.js';
import { renderSoakHtml, type SoakReport } from '../../faults/soak/report.js';
import { openPage } from '../support/browser.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readRun = <T>(file: string): T => {
  const raw = fs.readFileSync(path.join(ROOT, 'docs/runs', file));
  return JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8')) as T;
};
/** The newest kept run of a kind (`lab-`, `faults-`, `chaos-hosts-`): the one the docs were generated from. */
const newestRun = (kind: string) =>
  fs
    .readdirSync(path.join(ROOT, 'docs/runs'))
    .filter((f) => f.startsWith(kind) && /\.json(\.gz)?$/.test(f))
    .sort()
    .at(-1) as string;
/** Set REPORT_SCREENSHOTS=some/dir to keep a screenshot of each report in Chinese. */
const SHOTS = process.env.REPORT_SCREENSHOTS;

let dir: string;
const reports: Record<'bench' | 'faults' | 'chaos' | 'soak', { file: string; en: string; zh: string }> = {
  bench: { file: '', en: 'stocklab: the oversell comparison', zh: 'stocklab：超卖对比' },
  faults: { file: '', en: 'stocklab: the fault lab', zh: 'stocklab：故障实验' },
  chaos: { file: '', en: 'stocklab: chaos (a random nemesis under a steady load)', zh: 'stocklab：混沌测试（稳定负载下的随机故障）' },
  soak: { file: '', en: 'stocklab: soak', zh: 'stocklab：浸泡测试' },
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-reports-'));
  reports.bench.file = path.join(dir, 'bench.html');
  reports.faults.file = path.join(dir, 'faults.html');
  fs.writeFileSync(reports.bench.file, benchHtml(readRun<BenchReport>(newestRun('lab-'))));
  fs.writeFileSync(reports.faults.file, faultHtml(readRun<FaultReport>(newestRun('faults-'))));
  reports.chaos.file = path.join(dir, 'chaos.html');
  reports.soak.file = path.join(dir, 'soak.html');
  // the hosts topology's run: its timeline has a partition lane as well as the servers'
  fs.writeFileSync(reports.chaos.file, renderChaosHtml(readRun<ChaosReport>(newestRun('chaos-hosts-'))));
  fs.writeFileSync(reports.soak.file, renderSoakHtml(readRun<SoakReport>(newestRun('soak-'))));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.each(['bench', 'faults', 'chaos', 'soak'] as const)('the %s report', (name) => {
  const visibleTitle = async (p: Awaited<ReturnType<typeof openPage>>) => (await p.page.locator('h1:visible').allTextContents()).join('|');

  it('is in Chinese for a zh browser, and the switch and ?lang= change it', async () => {
    const r = reports[name];
    const zh = await openPage(pathToFileURL(r.file).href, 'zh-CN');
    try {
      expect(await zh.page.getAttribute('body', 'data-lang')).toBe('zh');
      expect(await visibleTitle(zh)).toBe(r.zh);
      expect(await zh.page.getAttribute('html', 'lang')).toBe('zh-CN');
      if (SHOTS) {
        fs.mkdirSync(SHOTS, { recursive: true });
        await zh.page.screenshot({ path: path.join(SHOTS, `${name}-report-zh.png`) });
      }
      await zh.page.click('nav.lang-switch button[data-lang="en"]');
      expect(await visibleTitle(zh)).toBe(r.en);
      expect(await zh.page.getAttribute('nav.lang-switch button[data-lang="en"]', 'aria-pressed')).toBe('true');
      await zh.page.goto(`${pathToFileURL(r.file).href}?lang=en`);
      expect(await visibleTitle(zh)).toBe(r.en);
    } finally {
      await zh.close();
    }
  });

  it('is in English for an en browser, and in Chinese with ?lang=zh', async () => {
    const r = reports[name];
    const en = await openPage(pathToFileURL(r.file).href, 'en-US');
    try {
      expect(await visibleTitle(en)).toBe(r.en);
      await en.page.goto(`${pathToFileURL(r.file).href}?lang=zh`);
      expect(await visibleTitle(en)).toBe(r.zh);
    } finally {
      await en.close();
    }
  });
});

describe('the chaos and soak reports in Chinese', () => {
  it('show a Chinese table heading and hide the English one', async () => {
    for (const [name, heading, english] of [
      ['chaos', '各方案', 'Per strategy'],
      ['soak', '资源', 'resource'],
    ] as const) {
      const zh = await openPage(`${pathToFileURL(reports[name].file).href}?lang=zh`, 'en-US');
      try {
        const visible = (await zh.page.locator('h2:visible, th:visible').allTextContents()).map((t) => t.trim());
        expect(visible).toContain(heading);
        expect(visible).not.toContain(english);
      } finally {
        await zh.close();
      }
    }
  });
});
