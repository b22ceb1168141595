// docs/bench.md's window-span block (issue 47): whether a shorter throughput window measures what
// the longer one did, from bench/window-span.ts's run, where every span is cut from the same windows.
import type { Lang } from '../src/lang.js';
import { spreadOf } from '../report/bench/stats.js';
import type { WindowSpan, WindowSpanReport } from '../report/bench/window-span.js';
import { BENCH_DEFAULTS } from '../report/bench/run-options.js';
import { markdownTable } from '../report/table.js';

const spanText = (s: WindowSpan, lang: Lang) => {
  const [w, m] = [s.warmup.toFixed(1), s.seconds.toFixed(1)];
  return lang === 'zh' ? `${w} 秒 + ${m} 秒` : `${w} s + ${m} s`;
};
const pct = (x: number) => `${Math.round(100 * x)} %`;

const WORDS = {
  en: {
    lead: (r: WindowSpanReport, file: string, rows: number, longest: number) =>
      `\`npx tsx bench/window-span.ts\` (\`${file}\`): ${r.rounds} rounds over the lab's ${rows} rows, interleaved as the lab does, each window ${longest} s of load at ${r.connections} connections. Every span's goodput is counted from the same windows, so the ratios compare spans measured together.`,
    header: (ref: string) => [
      'span: warm-up + measured',
      `goodput ÷ ${ref}, median over the rows (min–max)`,
      "the rounds' range ÷ their median, median over the rows",
    ],
    furthest: (ref: string, list: string) => `Rows furthest from ${ref}: ${list}.`,
  },
  zh: {
    lead: (r: WindowSpanReport, file: string, rows: number, longest: number) =>
      `\`npx tsx bench/window-span.ts\`（\`${file}\`）：按实验的方式轮换交错，${rows} 行各测 ${r.rounds} 轮，每个窗口在 ${r.connections} 个连接下施加 ${longest} 秒负载。每种时段的有效吞吐都从同一批窗口里数出来，所以比值比较的是同时测得的时段。`,
    header: (ref: string) => ['时段：预热 + 计量', `有效吞吐 ÷ ${ref}，各行的中位数（最小–最大）`, '各轮的极差 ÷ 中位数，各行的中位数'],
    furthest: (ref: string, list: string) => `离 ${ref} 最远的几行：${list}。`,
  },
} as const;

export function windowSpanBlock(r: WindowSpanReport, file: string, lang: Lang): string {
  const w = WORDS[lang];
  const [reference, ...others] = r.spans;
  if (!reference) throw new Error(`${file}: no spans`);
  const ref = spanText(reference, lang);
  const rows = r.spans.map((s) => {
    const ratio = r.ratio[s.label] ?? spreadOf([]);
    const cell = s === reference ? '1' : `${ratio.median.toFixed(3)} (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`;
    return [spanText(s, lang), cell, pct(r.relativeRange[s.label] ?? 0)];
  });
  const lines = [w.lead(r, file, r.cells.length, Math.max(...r.spans.map((s) => s.warmup + s.seconds))), '', markdownTable(w.header(ref), rows)];
  // The rows furthest off are listed for the span the lab runs now, else for the first shorter one.
  const first = others.find((s) => s.warmup === BENCH_DEFAULTS.warmupSeconds && s.seconds === BENCH_DEFAULTS.windowSeconds) ?? others[0];
  if (first) {
    const ratioOf = (c: WindowSpanReport['cells'][number]) =>
      spreadOf(c.goodput[first.label] ?? []).median / (spreadOf(c.goodput[reference.label] ?? []).median || 1);
    const furthest = [...r.cells].sort((a, b) => Math.abs(ratioOf(b) - 1) - Math.abs(ratioOf(a) - 1)).slice(0, 3);
    const list = furthest
      .map(
        (c) =>
          `${c.cell} ${ratioOf(c).toFixed(2)} (${spreadOf(c.goodput[first.label] ?? []).median.toFixed(0)}/s ÷ ${spreadOf(c.goodput[reference.label] ?? []).median.toFixed(0)}/s)`,
      )
      .join(lang === 'zh' ? '；' : '; ');
    lines.push('', w.furthest(`${spanText(first, lang)} ÷ ${ref}`, list));
  }
  return lines.join('\n');
}
