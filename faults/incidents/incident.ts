// What an incident of the gallery is: a lock library's own bug report, rebuilt by sequencing on
// the lab's servers, tried on the version the report names and, where a later one fixed it, on
// that one too; beside it, the lab's own lock of the same family under the same fault.
import fs from 'node:fs';
import path from 'node:path';
import type { Lang } from '../../src/lang.js';
import { REPO_ROOT } from '../../src/paths.js';
import type { FaultContext, LabTopology } from '../scenario.js';

export type Words = Record<Lang, string>;

/** One run of a case on one package (or on the lab's own lock). */
export interface Trial {
  /** The npm package as installed (an alias such as redis-semaphore-5.3.0 names its real package). */
  pkg: string;
  version: string;
  /** The case showed the symptom as reported. */
  reproduced: boolean;
  /** What the run measured, in a line. */
  measured: Words;
  facts: Record<string, string | number | boolean>;
}

/** How one package is tried: its name in node_modules and the case run against it. */
export interface TrialSpec {
  pkg: string;
  run(ctx: FaultContext): Promise<Omit<Trial, 'pkg' | 'version'>>;
}

export interface Incident {
  id: string;
  library: string;
  /** The cluster it needs: 'single' when absent; Sentinel or ZooKeeper's ensemble, or namespaces to cut links. */
  topology?: LabTopology;
  /** Repository and issue or pull-request numbers, as reported. */
  reported: { repo: string; refs: string[]; fixedBy?: Words };
  symptom: Words;
  /** How the lab builds it: the sequence, never a race. */
  built: Words;
  /** The version the report names (or the installed one): expected to reproduce. */
  affected: TrialSpec;
  /** A later version with the fix: expected not to. */
  fixed?: TrialSpec;
  /** The lab's own lock of the same family under the same fault. */
  lab: TrialSpec[];
}

export interface IncidentRow {
  id: string;
  library: string;
  reported: Incident['reported'];
  symptom: Words;
  built: Words;
  affected: Trial | { pkg: string; version: string; error: string };
  fixed?: Trial | { pkg: string; version: string; error: string };
  lab: (Trial | { pkg: string; version: string; error: string })[];
  ms: number;
}

/** The version npm installed under `pkg` (an alias's own package.json names the real version). */
export function installedVersion(pkg: string): string {
  const file = path.join(REPO_ROOT, 'node_modules', pkg, 'package.json');
  const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string };
  return `${name}@${version.replace(/^v/, '')}`;
}

/** The lab's own lock, named as a trial's package. */
export const LAB = 'stocklab';
