// Progress lines while the bench runs (stderr), so a slow strategy is visibly alive, not hung.
import { int, oversoldText, raceText } from '../report/bench/format.js';
import type { WindowSample } from './measure.js';
import { TOPOLOGY_LABEL, verdictOf, type RaceFigures, type Topology } from '../report/bench/report.js';

const roundOf = (round: number, rounds: number) => `[round ${round}/${rounds}]`;

export function ceilingLine(round: number, rounds: number, topology: Topology, autocannon: number, wrk: number | undefined): string {
  const ref = wrk === undefined ? '' : `, wrk ${int(wrk)} req/s (${(autocannon / wrk).toFixed(2)})`;
  return `${roundOf(round, rounds)} GET /noop · ${TOPOLOGY_LABEL[topology]}: autocannon ${int(autocannon)} req/s${ref}`;
}

export function windowLine(round: number, rounds: number, strategy: string, topology: Topology, w: WindowSample): string {
  const check = verdictOf(w.check) === 'exact' ? '' : `  ${oversoldText(w.check)}`;
  return `${roundOf(round, rounds)} ${strategy} · ${TOPOLOGY_LABEL[topology]}: ${int(w.goodput)} sold/s, ${int(w.refusedPerSec)} 503/s, p99 ${int(w.p99Ms)} ms${check}`;
}

export function raceLine(strategy: string, topology: Topology, r: RaceFigures): string {
  const sold = verdictOf(r) === 'exact' ? `exact, oversold ${oversoldText(r)}` : oversoldText(r);
  return `[race] ${strategy} · ${TOPOLOGY_LABEL[topology]}: ${r.requests} requests for ${r.initial} units → 200/409/503/left ${raceText(r)} → ${sold} (${r.seconds.toFixed(1)} s)`;
}

/** A last window that sold out: its goodput (if its span was long enough) and its race. */
export function soldOutLine(round: number, rounds: number, strategy: string, topology: Topology, w: WindowSample | undefined, r: RaceFigures): string {
  const sample = w ? `${int(w.goodput)} sold/s, ${int(w.refusedPerSec)} 503/s, p99 ${int(w.p99Ms)} ms` : 'sold out too early for a goodput sample';
  const sold = verdictOf(r) === 'exact' ? `exact, oversold ${oversoldText(r)}` : oversoldText(r);
  return `[round ${round}/${rounds}, sells out] ${strategy} · ${TOPOLOGY_LABEL[topology]}: ${sample}; sold out: ${r.requests} requests for ${r.initial} units → 200/409/503/left ${raceText(r)} → ${sold} (${r.seconds.toFixed(1)} s)`;
}
