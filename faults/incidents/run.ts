// Runs the gallery's incidents on a lab cluster, one trial after the other: the affected version,
// the fixed one, then the lab's own lock. A trial that throws is reported with its error, not dropped.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths.js';
import type { FaultContext } from '../scenario.js';
import { LAB, installedVersion, type Incident, type IncidentRow, type TrialSpec } from './incident.js';

function versionOf(pkg: string): string {
  if (!pkg.startsWith(LAB)) return installedVersion(pkg);
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `${pkg.replace(LAB, `${LAB}@${version}`)}`;
}

async function tried(ctx: FaultContext, spec: TrialSpec): Promise<IncidentRow['affected']> {
  const version = versionOf(spec.pkg);
  try {
    return { pkg: spec.pkg, version, ...(await spec.run(ctx)) };
  } catch (err) {
    return { pkg: spec.pkg, version, error: err instanceof Error ? err.message : String(err) };
  }
}

export async function runIncident(ctx: FaultContext, incident: Incident): Promise<IncidentRow> {
  const t0 = Date.now();
  ctx.log(`incident ${incident.id}: ${incident.library} …`);
  const affected = await tried(ctx, incident.affected);
  const fixed = incident.fixed && (await tried(ctx, incident.fixed));
  const lab = [];
  for (const spec of incident.lab) lab.push(await tried(ctx, spec));
  const { id, library, reported, symptom, built } = incident;
  return { id, library, reported, symptom, built, affected, ...(fixed && { fixed }), lab, ms: Date.now() - t0 };
}

/** Every trial ran, the affected one reproduced and the fixed one did not: what the gallery claims. */
export function asClaimed(row: IncidentRow): boolean {
  const ok = (t: IncidentRow['affected'] | undefined, reproduced: boolean) => t === undefined || ('reproduced' in t && t.reproduced === reproduced);
  return ok(row.affected, true) && ok(row.fixed, false) && row.lab.every((t) => !('error' in t));
}
