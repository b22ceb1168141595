// The chaos run on one time axis, as inline SVG: a lane per server with its faults drawn as bars,
// and below, per second, the sales, refusals and unknown outcomes, with each strategy's turns as
// labelled bands.
import { escapeXml as esc, niceMax } from '../../report/svg.js';
import { isOutcomeUnknown, isSold } from '../client.js';
import type { ChaosHistory } from './history.js';
import { faultLine } from './fault-line.js';
import type { Lang } from '../../src/lang.js';
import { CHAOS_WORDS } from './words.js';

const W = 1200;
const LEFT = 110;
const LANE_H = 16;
const CHART_H = 160;

const FAULT_COLORS = { freeze: '#3b7dd8', kill: '#c62828', stop: '#8e44ad', pause: '#ef8c00', partition: '#00897b' } as const;
const ANSWER_SERIES = [
  { key: 'sold', color: '#2e7d32' },
  { key: 'unknown', color: '#ef8c00' },
  { key: 'refused', color: '#9e9e9e' },
] as const;

export function renderTimeline(h: ChaosHistory, lang: Lang = 'en'): string {
  const words = CHAOS_WORDS[lang].html;
  const endMs = Math.max(1, ...h.slices.map((s) => s.endMs), ...h.requests.map((r) => r.end));
  const plotW = W - LEFT - 20;
  const x = (ms: number) => LEFT + (ms / endMs) * plotW;
  const lanes = [...new Set(h.faults.map((f) => f.target))].sort();
  const lanesTop = 40;
  const chartTop = lanesTop + lanes.length * LANE_H + 40;
  const H = chartTop + CHART_H + 40;
  const parts: string[] = [];
  parts.push(`<text x="${LEFT}" y="18" class="title">${esc(words.timeline(h.seed, (h.lastHealMs / 1000).toFixed(1)))}</text>`);
  lanes.forEach((lane, i) => {
    const y = lanesTop + i * LANE_H;
    parts.push(
      `<text x="${LEFT - 6}" y="${y + 11}" class="label">${esc(lane)}</text><line x1="${LEFT}" x2="${W - 20}" y1="${y + 8}" y2="${y + 8}" class="grid"/>`,
    );
    for (const f of h.faults.filter((e) => e.target === lane)) {
      const color = (FAULT_COLORS as Readonly<Record<string, string>>)[f.kind.split('-')[0] ?? ''] ?? '#555';
      const x0 = x(f.injectedMs);
      const w = Math.max(2, x(f.healedMs ?? h.lastHealMs) - x0);
      parts.push(
        `<rect x="${x0.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${LANE_H - 4}" fill="${color}"><title>${esc(faultLine(f, lang))}</title></rect>`,
      );
    }
  });
  // turns as bands behind the answers' chart
  h.slices.forEach((s, i) => {
    const x0 = x(s.startMs);
    const w = Math.max(1, x(s.endMs) - x0);
    parts.push(
      `<rect x="${x0.toFixed(1)}" y="${chartTop}" width="${w.toFixed(1)}" height="${CHART_H}" fill="${i % 2 ? '#f4f4f4' : '#fafafa'}"><title>${esc(s.strategy)}</title></rect>`,
    );
    parts.push(
      `<text x="${(x0 + 2).toFixed(1)}" y="${chartTop - 4}" class="tick" transform="rotate(-30 ${(x0 + 2).toFixed(1)} ${chartTop - 4})" style="text-anchor:start">${esc(s.kind === 'recovery' ? `↻ ${s.strategy}` : s.strategy)}</text>`,
    );
  });
  const seconds = Math.ceil(endMs / 1000);
  const buckets = Array.from({ length: seconds }, () => ({ sold: 0, unknown: 0, refused: 0 }));
  for (const r of h.requests) {
    const b = buckets[Math.min(seconds - 1, Math.floor(r.end / 1000))];
    if (!b) continue;
    if (isSold(r.outcome)) b.sold++;
    else if (isOutcomeUnknown(r.outcome)) b.unknown++;
    else b.refused++;
  }
  const top = niceMax(Math.max(1, ...buckets.map((b) => b.sold + b.unknown + b.refused)));
  const barW = plotW / seconds;
  buckets.forEach((b, i) => {
    let y = chartTop + CHART_H;
    for (const s of ANSWER_SERIES) {
      const hgt = (b[s.key] / top) * CHART_H;
      if (hgt <= 0) continue;
      y -= hgt;
      parts.push(
        `<rect x="${(LEFT + i * barW).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(0.5, barW - 0.5).toFixed(1)}" height="${hgt.toFixed(1)}" fill="${s.color}"/>`,
      );
    }
  });
  parts.push(`<text x="${LEFT - 6}" y="${chartTop + 10}" class="label">${top}/s</text><text x="${LEFT - 6}" y="${chartTop + CHART_H}" class="label">0</text>`);
  for (let t = 0; t <= endMs; t += niceMax(endMs / 10))
    parts.push(`<text x="${x(t).toFixed(1)}" y="${chartTop + CHART_H + 16}" class="tick">${(t / 1000).toFixed(0)} s</text>`);
  const legend = [
    ...Object.entries(FAULT_COLORS).map(([k, c]) => [words.legend[k as keyof typeof FAULT_COLORS], c] as const),
    ...ANSWER_SERIES.map((s) => [words.legend[s.key], s.color] as const),
  ];
  legend.forEach(([name, color], i) =>
    parts.push(
      `<rect x="${LEFT + i * 90}" y="${H - 16}" width="10" height="10" fill="${color}"/><text x="${LEFT + i * 90 + 14}" y="${H - 7}" class="unit">${esc(name)}</text>`,
    ),
  );
  return `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join('')}</svg>`;
}
