// What one `npm run faults` run keeps: the rows, how they were taken, and on what. The JSON file is
// this object; the markdown and HTML are rendered from it.
import os from 'node:os';
import type { FaultRow } from '../row.js';
import type { FaultSizes } from '../scenario.js';

export interface ScenarioRun {
  name: string;
  description: string;
  seconds: number;
  /** Set when the scenario itself failed (not one of its cases): its rows may be missing. */
  error?: string;
}

export interface FaultReport {
  stamp: string;
  date: string;
  seconds: number;
  machine: { nproc: number; cpu: string; node: string; platform: string };
  options: { scenarios: string[]; strategies?: string[]; sizes: FaultSizes };
  scenarios: ScenarioRun[];
  rows: FaultRow[];
  /** How many strategies GET /strategies declares fault outcomes for (expected.faults). */
  catalogDeclarations: number;
  /** Declarations of GET /strategies (expected.faults, fencing) that the rows contradict. */
  catalogMismatches: string[];
}

export function stampOf(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '');
}

export function machineInfo(): FaultReport['machine'] {
  return { nproc: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.type()} ${os.release()}` };
}

/** Every row as expected, no scenario failed, and the catalog's declarations agree with the rows. */
export function allAsExpected(report: Pick<FaultReport, 'rows' | 'scenarios' | 'catalogMismatches'>): boolean {
  return report.rows.every((r) => r.asExpected) && report.scenarios.every((s) => s.error === undefined) && report.catalogMismatches.length === 0;
}
