// <dir>/cluster.json: what `cluster up` started (ClusterInfo plus each server's pid), so `down` and
// `status` can find exactly those processes later, and never signal a pid that was reused since.
import { etcdHealthy } from './etcd.js';
import { postgresPing } from './postgres.js';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isLink } from './links.js';
import { isPortFreeAt } from './ports.js';
import { isSameProcess, terminateGroup } from './processes.js';
import { healthOk, mysqlPing, redisPasswordOf, redisPing, zkServing } from './probes.js';
import { clusterInfoSchema, type ClusterInfo } from './types.js';

const recordedServer = z.object({
  name: z.string(),
  port: z.number().int(),
  /** Its address when not loopback (the hosts topology). */
  host: z.string().optional(),
  pid: z.number().int().positive(),
  /** /proc/PID/stat field 22 and /proc/PID/cmdline as seen right after start */
  startTime: z.string(),
  cmdline: z.string(),
});
export type RecordedServer = z.infer<typeof recordedServer>;

const clusterState = clusterInfoSchema.extend({
  startedAt: z.string(),
  /** codeFingerprint() of the code the instances were started from */
  code: z.string().optional(),
  /** Extra env the app instances were started with (`npm run live` turns on FAULT_INJECTION). */
  instanceEnv: z.record(z.string(), z.string()).optional(),
  /** false while `up` is still starting servers (or died doing so) */
  complete: z.boolean(),
  /** in stop order: the front (nginx, apps) first, MySQL last */
  servers: z.array(recordedServer),
});
export type ClusterState = z.infer<typeof clusterState>;

export function statePath(dir: string): string {
  return path.join(dir, 'cluster.json');
}

export function readState(dir: string): ClusterState | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(statePath(dir), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = clusterState.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`${statePath(dir)} is not a cluster record: ${parsed.error.message}`);
  return parsed.data;
}

export function writeState(dir: string, state: ClusterState): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${statePath(dir)}.tmp`;
  // It holds the MySQL password (and Redis's, when set): readable by its owner only.
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, statePath(dir)); // never leave a half-written record
}

export function removeState(dir: string): void {
  fs.rmSync(statePath(dir), { force: true });
}

/** The record's ClusterInfo part: the same addresses clusterInfo() gives for its config. */
export function infoOf(state: ClusterState): ClusterInfo {
  return clusterInfoSchema.parse(state); // an object schema drops the keys it does not name
}

export function isAlive(s: RecordedServer): boolean {
  return isSameProcess({ pid: s.pid, startTime: s.startTime, cmdline: s.cmdline });
}

/** Asks the server the same question its start waited on. */
export async function probe(s: RecordedServer, info: ClusterInfo): Promise<boolean> {
  const at = { host: s.host ?? '127.0.0.1', port: s.port };
  // A delaying forwarder: listening is all it does by itself.
  if (isLink(s.name)) return !(await isPortFreeAt(at.host, at.port));
  if (s.name === 'mysql') return mysqlPing({ ...at, user: info.mysql.user, password: info.mysql.password, database: info.mysql.database });
  if (s.name.startsWith('redis') || s.name.startsWith('redlock-') || s.name.startsWith('sentinel-')) return redisPing(at, redisPasswordOf(info.redis));
  if (s.name.startsWith('zookeeper')) return zkServing(at);
  if (s.name.startsWith('etcd')) return etcdHealthy(`http://${at.host}:${at.port}`);
  if (s.name === 'postgres') return info.postgres !== undefined && postgresPing({ ...at, user: info.postgres.user, password: info.postgres.password });
  return healthOk(at);
}

/**
 * Stops one recorded server if, and only if, its pid still is the process we started.
 * Returns 'stopped' or 'gone' (already dead, or the pid now belongs to someone else).
 */
export async function stopRecorded(s: RecordedServer): Promise<'stopped' | 'gone'> {
  if (!isAlive(s)) return 'gone';
  await terminateGroup(s.pid, s.name === 'mysql' ? 20_000 : 10_000, s.name);
  return 'stopped';
}
