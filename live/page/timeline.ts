// The space-time view: one lane per instance, one bar per hold of the lock (granted → released),
// two holds at once marked in red AND with a triangle, faults drawn on their lanes (a frozen
// process as a shaded band, a killed one as a cross and a band, a cut link as a band across the
// lanes it cuts off, from the cut's recorded time to its heal's).
import { overlapping } from '../shared/holds.js';
import type { FaultMark, Hold } from '../shared/types.js';
import { svg } from './dom.js';
import type { Dictionary } from './i18n.js';

const LANE_H = 34;
const LABEL_W = 74;
const AXIS_H = 20;

export interface TimelineInput {
  lanes: readonly string[];
  holds: readonly Hold[];
  faults: readonly FaultMark[];
  /** the time the view reaches, ms */
  now: number;
  width: number;
  /** the axis' end, ms, when runs side by side share it; else the view's own */
  axisEnd?: number;
}

function defs(): SVGDefsElement {
  const hatch = (id: string, color: string) =>
    svg(
      'pattern',
      { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 6, height: 6, fill: 'transparent' }),
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: color, 'stroke-width': 3 }),
    );
  return svg('defs', {}, hatch('hatch-frozen', '#8aa4c8'), hatch('hatch-overlap', '#ffffff'), hatch('hatch-cut', '#e3a33b'));
}

/** Runs of consecutive lane indexes: [0, 1, 3] → [[0, 1], [3, 3]]. */
function spans(indexes: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const i of [...indexes].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

export function renderTimeline(input: TimelineInput, t: Dictionary): SVGSVGElement {
  const { lanes, holds, faults, width } = input;
  const height = AXIS_H + lanes.length * LANE_H + 6;
  const end = input.axisEnd ?? Math.max(input.now, ...faults.map((f) => f.end ?? f.healBy), 1);
  const plotW = Math.max(50, width - LABEL_W - 8);
  const x = (ms: number) => LABEL_W + (Math.min(end, Math.max(0, ms)) / end) * plotW;
  const laneY = (lane: string) => AXIS_H + Math.max(0, lanes.indexOf(lane)) * LANE_H;
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'timeline', role: 'img', 'aria-label': t.timeline, 'data-axis-end': end });
  root.append(defs());

  // axis: a tick per sensible step
  const step = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000].find((s) => end / s <= Math.max(3, plotW / 90)) ?? 60_000;
  for (let ms = 0; ms <= end; ms += step) {
    root.append(
      svg('line', { x1: x(ms), x2: x(ms), y1: AXIS_H - 4, y2: height, class: 'tick' }),
      svg('text', { x: x(ms), y: AXIS_H - 7, class: 'tick-label', 'text-anchor': 'middle' }, ms >= 1_000 ? `${ms / 1_000}s` : `${ms}ms`),
    );
  }
  lanes.forEach((lane) => {
    const y = laneY(lane);
    root.append(
      svg('rect', { x: LABEL_W, y: y + 2, width: plotW, height: LANE_H - 4, class: 'lane' }),
      svg('text', { x: 4, y: y + LANE_H / 2 + 4, class: 'lane-label' }, lane),
    );
  });
  for (const f of faults) {
    if (f.kind === 'partition') {
      // one band across each run of adjacent lanes it cuts off, so a cut of several instances reads as one
      const cutOff = (f.cut?.lanes ?? [f.target]).filter((l) => lanes.includes(l));
      const from = (f.cut?.from ?? []).join(', ');
      const x1 = x(f.start);
      const x2 = x(f.end ?? input.now);
      for (const [first, last] of spans(cutOff.map((l) => lanes.indexOf(l)))) {
        const y = AXIS_H + first * LANE_H;
        const h = (last - first + 1) * LANE_H;
        const names = lanes.slice(first, last + 1);
        const tip = `${t.cutTip.replace('{lane}', names.join(', ')).replace('{from}', from)} ${Math.round(f.start)}–${f.end === undefined ? '…' : Math.round(f.end)} ms`;
        root.append(
          svg(
            'rect',
            {
              x: x1,
              y,
              width: Math.max(2, x2 - x1),
              height: h,
              class: 'fault fault-partition',
              'data-fault': 'partition',
              'data-lanes': names.join(','),
              'data-from': from,
              'data-start': Math.round(f.start),
              'data-end': f.end === undefined ? undefined : Math.round(f.end),
            },
            svg('title', {}, tip),
          ),
          svg('line', { x1, x2: x1, y1: y, y2: y + h, class: 'cut-edge' }),
          ...(f.end === undefined ? [] : [svg('line', { x1: x2, x2, y1: y, y2: y + h, class: 'cut-edge' })]),
        );
        // at the band's right end, above the bars: its left end is where the holder's marks crowd
        if (x2 - x1 > 8 * (from.length + 2)) root.append(svg('text', { x: x2 - 3, y: y + 8, 'text-anchor': 'end', class: 'cut-label' }, `✂ ${from}`));
      }
      continue;
    }
    const y = laneY(f.target);
    if (!lanes.includes(f.target)) continue;
    const x1 = x(f.start);
    const x2 = x(f.end ?? input.now);
    const title = svg(
      'title',
      {},
      `${f.target}: ${f.kind === 'kill' ? t.legendKilled : t.legendFrozen} ${Math.round(f.start)}–${f.end === undefined ? '…' : Math.round(f.end)} ms`,
    );
    root.append(svg('rect', { x: x1, y: y + 1, width: Math.max(2, x2 - x1), height: LANE_H - 2, class: `fault fault-${f.kind}`, 'data-fault': f.kind }, title));
    if (f.kind === 'kill')
      root.append(
        svg('path', { d: `M${x1 - 6},${y + 6} l12,${LANE_H - 12} m0,-${LANE_H - 12} l-12,${LANE_H - 12}`, class: 'kill-mark', 'data-fault-mark': 'kill' }),
      );
  }
  const marked = overlapping(holds);
  holds.forEach((h, i) => {
    const y = laneY(h.lane) + 8;
    const x1 = x(h.start);
    const w = Math.max(1.5, x(h.end) - x1);
    const over = marked.has(i);
    const refused = h.status === 503; // a 409 sold out held the lock and wrote nothing, as it should
    const cls = `hold${over ? ' overlap' : ''}${refused ? ' refused' : ''}`;
    const label = `${h.lane} ${Math.round(h.start)}–${Math.round(h.end)} ms${h.token ? ` ${t.token} ${h.token}` : ''}${h.error ? ` (${h.error})` : ''}${over ? ` — ${t.legendOverlap}` : ''}`;
    root.append(
      svg(
        'rect',
        { x: x1, y, width: w, height: LANE_H - 16, class: cls, 'data-overlap': over ? 1 : 0, 'data-token': h.token, 'data-status': h.status },
        svg('title', {}, label),
      ),
    );
    if (over) {
      root.append(svg('rect', { x: x1, y, width: w, height: LANE_H - 16, fill: 'url(#hatch-overlap)', class: 'overlap-hatch' }));
      root.append(svg('path', { d: `M${x1},${y - 1} l-4,-6 h8 z`, class: 'overlap-mark' }));
    }
    if (h.token && w > 8 * h.token.length + 6) root.append(svg('text', { x: x1 + 3, y: y + LANE_H - 21, class: 'token' }, h.token));
  });
  return root;
}

/** Units sold per second, frame by frame, up to `tEnd` (the shared axis' end) or the last point. */
export function renderGoodput(points: readonly { t: number; perSecond: number }[], width: number, tEnd?: number): SVGSVGElement {
  const h = 60;
  const root = svg('svg', { width, height: h, viewBox: `0 0 ${width} ${h}`, class: 'goodput' });
  if (points.length < 2) return root;
  const tMax = tEnd ?? Math.max(...points.map((p) => p.t), 1);
  const vMax = Math.max(...points.map((p) => p.perSecond), 1);
  const d = points
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${((p.t / tMax) * (width - 4) + 2).toFixed(1)},${(h - 4 - (p.perSecond / vMax) * (h - 14)).toFixed(1)}`)
    .join(' ');
  root.append(svg('path', { d, class: 'goodput-line' }), svg('text', { x: 4, y: 10, class: 'tick-label' }, `max ${Math.round(vMax)}/s`));
  return root;
}
