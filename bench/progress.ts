// Progress lines while the bench runs (stderr), so a slow strategy is visibly alive, not hung.
import { oversoldText } from './format.js';
import { TOPOLOGY_LABEL, verdictOf, type RunResult, type Topology } from './report.js';

const counter = (n: number, total: number) => `[${String(n).padStart(String(total).length)}/${total}]`;

export function startLine(n: number, total: number, strategy: string, topology: Topology): string {
  return `${counter(n, total)} ${strategy} · ${TOPOLOGY_LABEL[topology]} …`;
}

export function tickLine(strategy: string, topology: Topology, answered: number, requests: number, secs: number, maxSeconds: number): string {
  return `        … ${strategy} · ${TOPOLOGY_LABEL[topology]}: ${answered}/${requests} answered after ${secs.toFixed(0)} s (cut at ${maxSeconds} s)`;
}

export function progressLine(n: number, total: number, r: RunResult): string {
  const sold = verdictOf(r) === 'exact' ? `exact, oversold ${oversoldText(r)}` : oversoldText(r);
  const cut = r.truncated ? `  TRUNCATED at ${r.seconds.toFixed(0)} s` : '';
  return `${counter(n, total)} ${r.strategy} · ${TOPOLOGY_LABEL[r.topology]}: ${r.ok} ok, ${r.soldOut} sold out, ${r.errors} errors, ${r.left} left → ${sold}; ${Math.round(r.rps)} req/s, p99 ${r.p99Ms} ms (${r.seconds.toFixed(1)} s)${cut}`;
}
