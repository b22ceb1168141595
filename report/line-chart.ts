// A line chart as inline SVG: one line per series over a shared x axis (the ramp's clients).
// Points are spaced evenly by step, not by value, so the low steps stay readable next to 10,000.
import { escapeXml, fmt, niceMax } from './svg.js';

export interface Line {
  name: string;
  color: string;
  /** One value per x; null = not measured (the line breaks there). */
  values: (number | null)[];
}

export interface LineChart {
  title: string;
  unit: string;
  xLabel: string;
  xs: number[];
  lines: Line[];
  /** A point's tooltip: "sql-update at 1000" by default; a report in another language says its own. */
  at?: (name: string, x: number) => string;
}

const W = 960;
const H = 340;
const LEFT = 70;
const RIGHT = 30;
const TOP = 60;
const BOTTOM = 48;

export function renderLineChart(c: LineChart): string {
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const values = c.lines.flatMap((l) => l.values).filter((v): v is number => v !== null);
  const max = niceMax(Math.max(0, ...values));
  const x = (i: number) => LEFT + (c.xs.length > 1 ? (i / (c.xs.length - 1)) * plotW : plotW / 2);
  const y = (v: number) => TOP + plotH - (Math.max(0, v) / max) * plotH;
  const out: string[] = [];
  out.push(`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(c.title)}">`);
  out.push(`<text x="0" y="18" class="title">${escapeXml(c.title)}</text>`);
  c.lines.forEach((l, i) => {
    const lx = LEFT + i * 170;
    out.push(`<rect x="${lx}" y="32" width="12" height="12" fill="${l.color}"/><text x="${lx + 18}" y="42">${escapeXml(l.name)}</text>`);
  });
  for (let i = 0; i <= 5; i++) {
    const v = (max * i) / 5;
    out.push(`<line x1="${LEFT}" y1="${y(v)}" x2="${W - RIGHT}" y2="${y(v)}" class="grid"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" class="label">${fmt(v)}</text>`);
  }
  c.xs.forEach((xv, i) => out.push(`<text x="${x(i)}" y="${TOP + plotH + 16}" class="tick">${xv}</text>`));
  out.push(`<text x="${LEFT + plotW / 2}" y="${H - 6}" class="tick">${escapeXml(c.xLabel)}</text>`);
  out.push(`<text x="0" y="${TOP - 8}" class="unit">${escapeXml(c.unit)}</text>`);
  for (const l of c.lines) {
    // a null breaks the line into segments
    const segments: string[][] = [[]];
    l.values.forEach((v, i) => {
      if (v === null) segments.push([]);
      else segments.at(-1)?.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    for (const seg of segments.filter((s) => s.length > 0)) {
      out.push(`<polyline fill="none" stroke="${l.color}" stroke-width="2" points="${seg.join(' ')}"/>`);
    }
    l.values.forEach((v, i) => {
      if (v === null) return;
      out.push(
        `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${l.color}"><title>${escapeXml(`${(c.at ?? ((n, x) => `${n} at ${x}`))(l.name, c.xs[i] as number)}: ${fmt(v)} ${c.unit}`)}</title></circle>`,
      );
    });
  }
  out.push('</svg>');
  return out.join('\n');
}
