// A horizontal grouped bar chart as inline SVG: one row per strategy, one bar per series.
// Generated here so the report opens from disk with no network and no JS library.

export interface Series {
  name: string;
  color: string;
}

/** The least and the greatest of a value's repeats, drawn as a whisker across its bar's end. */
export interface Range {
  min: number;
  max: number;
}

export interface BarRow {
  label: string;
  /** One value per series; null = not measured. */
  values: (number | null)[];
  /** Per series, the value's min–max over its repeats (absent or null: no whisker). */
  ranges?: (Range | null)[];
}

export interface RefLine {
  label: string;
  value: number;
  color: string;
}

export interface BarChart {
  title: string;
  unit: string;
  series: Series[];
  rows: BarRow[];
  refLines?: RefLine[];
  /** Bars whose value is "bad" (e.g. oversold > 0) get their number in red. */
  alarm?: (v: number) => boolean;
  /** What a missing value says (default "not measured"), in the report's language. */
  notMeasured?: string;
}

export const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const W = 960;
const LABEL_W = 200;
const VALUE_W = 80;
const BAR_H = 12;
const BAR_GAP = 2;
const ROW_PAD = 10;
const HEAD = 56;
const REF_LABEL_H = 14;
const AXIS_H = 28;

/** A round axis maximum ≥ max: 1, 2 or 5 times a power of ten. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((c) => c >= max) ?? 10 * p;
}

/** An axis or bar value: whole from 100 up, one decimal below. */
export const fmt = (v: number): string => (Math.abs(v) >= 100 ? String(Math.round(v)) : String(Math.round(v * 10) / 10));

export function renderBarChart(c: BarChart): string {
  const plotW = W - LABEL_W - VALUE_W;
  const rowH = c.series.length * (BAR_H + BAR_GAP) + ROW_PAD;
  const refs = c.refLines ?? [];
  // reference-line labels get their own band above the bars, so they never cover a bar's number
  const TOP = HEAD + refs.length * REF_LABEL_H + 6;
  const H = TOP + c.rows.length * rowH + AXIS_H;
  const values = c.rows.flatMap((r) => [...r.values, ...(r.ranges ?? []).map((g) => g?.max ?? null)]).filter((v): v is number => v !== null);
  const max = niceMax(Math.max(0, ...values, ...refs.map((l) => l.value)));
  const x = (v: number) => LABEL_W + (Math.max(0, v) / max) * plotW;
  const out: string[] = [];

  out.push(`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(c.title)}">`);
  out.push(`<text x="0" y="18" class="title">${escapeXml(c.title)}</text>`);
  c.series.forEach((s, i) => {
    const lx = LABEL_W + i * 170;
    out.push(`<rect x="${lx}" y="32" width="12" height="12" fill="${s.color}"/><text x="${lx + 18}" y="42">${escapeXml(s.name)}</text>`);
  });

  // gridlines and axis
  const plotTop = TOP - 6;
  const plotBottom = H - AXIS_H;
  for (let i = 0; i <= 5; i++) {
    const v = (max * i) / 5;
    out.push(`<line x1="${x(v)}" y1="${plotTop}" x2="${x(v)}" y2="${plotBottom}" class="grid"/>`);
    out.push(`<text x="${x(v)}" y="${plotBottom + 16}" class="tick">${fmt(v)}</text>`);
  }
  out.push(`<text x="${W - VALUE_W}" y="${H - 2}" class="unit">${escapeXml(c.unit)}</text>`);

  c.rows.forEach((row, ri) => {
    const y0 = TOP + ri * rowH;
    const mid = y0 + (c.series.length * (BAR_H + BAR_GAP)) / 2;
    out.push(`<text x="${LABEL_W - 8}" y="${mid + 4}" class="label">${escapeXml(row.label)}</text>`);
    row.values.forEach((v, si) => {
      const y = y0 + si * (BAR_H + BAR_GAP);
      const color = c.series[si]?.color ?? '#888';
      if (v === null) {
        out.push(`<text x="${LABEL_W + 4}" y="${y + BAR_H - 2}" class="na">${escapeXml(c.notMeasured ?? 'not measured')}</text>`);
        return;
      }
      const w = Math.max(x(v) - LABEL_W, v > 0 ? 1 : 0);
      const range = row.ranges?.[si] ?? null;
      const spread = range && range.max > range.min ? ` (${fmt(range.min)}–${fmt(range.max)})` : '';
      out.push(
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color}"><title>${escapeXml(`${row.label} · ${c.series[si]?.name ?? ''}: ${fmt(v)}${spread} ${c.unit}`)}</title></rect>`,
      );
      let end = LABEL_W + w;
      if (range && range.max > range.min) {
        const [x1, x2, mid] = [x(range.min).toFixed(1), x(range.max).toFixed(1), y + BAR_H / 2];
        out.push(`<path d="M${x1} ${mid}H${x2}M${x1} ${y + 2}V${y + BAR_H - 2}M${x2} ${y + 2}V${y + BAR_H - 2}" class="whisker"/>`);
        end = Math.max(end, x(range.max));
      }
      const cls = c.alarm?.(v) ? 'value alarm' : 'value';
      out.push(`<text x="${(end + 4).toFixed(1)}" y="${y + BAR_H - 2}" class="${cls}">${fmt(v)}</text>`);
    });
  });

  // labels stacked so two close reference lines stay readable
  refs.forEach((l, i) => {
    const y = HEAD + i * REF_LABEL_H + 10;
    const anchor = x(l.value) - LABEL_W > plotW / 2 ? 'end' : 'start';
    out.push(`<line x1="${x(l.value)}" y1="${y + 3}" x2="${x(l.value)}" y2="${plotBottom}" stroke="${l.color}" class="ref"/>`);
    out.push(
      `<text x="${x(l.value) + (anchor === 'end' ? -4 : 4)}" y="${y}" text-anchor="${anchor}" class="reflabel" fill="${l.color}">${escapeXml(l.label)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}

/** A chart as a file of its own (an .svg an image tag can show): its namespace, a white page and its styles inlined. */
export function standaloneSvg(chart: string, css: string): string {
  const open = chart.indexOf('>') + 1;
  const head = chart.slice(0, open).replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" ');
  return `${head}\n<style>svg.chart { background: #fff; }\n${css}</style>\n<rect width="100%" height="100%" fill="#fff"/>${chart.slice(open)}\n`;
}
