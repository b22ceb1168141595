// The reports' shared look (the bench's and the fault lab's HTML): one stylesheet, inlined.

/** The SVG charts' rules (svg.ts draws them), inlined in the reports and in a chart saved on its own. */
export const CHART_CSS = `svg.chart text { font: 12px system-ui, sans-serif; fill: #333; }
svg.chart .title { font-size: 15px; font-weight: 600; }
svg.chart .label { text-anchor: end; } svg.chart .tick { text-anchor: middle; fill: #777; font-size: 11px; }
svg.chart .unit { fill: #777; font-size: 11px; } svg.chart .na { fill: #999; font-style: italic; font-size: 11px; }
svg.chart .grid { stroke: #e6e6e6; } svg.chart .value { font-size: 11px; }
svg.chart .alarm { fill: #b00020; font-weight: 700; }
svg.chart .whisker { stroke: #333; stroke-width: 1.2; fill: none; }
`;

/** The rules both reports use: page, tables, verdict cells and the SVG charts. */
export function reportCss(maxWidthPx: number): string {
  return `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 24px; max-width: ${maxWidthPx}px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #555; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; }
td.bad { background: #fde0e0; color: #b00020; font-weight: 700; }
td.warn { background: #fff4d6; } td.good { color: #1b7f3b; }
${CHART_CSS}`;
}
