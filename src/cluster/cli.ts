// `npm run cluster -- up|down|status`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
import { isDeepStrictEqual } from 'node:util';
import { loadClusterConfig } from '../config.js';
import { clusterInfo, resolveDir, startCluster, type RunningCluster } from './cluster.js';
import { codeFingerprint } from './fingerprint.js';
import { infoOf, inStopOrder, isAlive, probe, readState, removeState, stopRecorded, writeState, type ClusterState, type RecordedServer } from './state.js';
import type { ClusterInfo } from './types.js';

const say = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

function printUrls(info: ClusterInfo): void {
  say(`  nginx      ${info.nginx}`);
  say(`  instances  ${info.instances.join('  ')}`);
  say(`  mysql      mysql://${info.mysql.user}@${info.mysql.host}:${info.mysql.port}/${info.mysql.database}`);
  say(`  redis      ${info.redis}`);
  say(`  redlock    ${info.redlock.join('  ')}`);
  say(`  zookeeper  ${info.zookeeper}`);
  say(`  data       ${info.dir}  (logs in ${info.dir}/logs)`);
}

async function stopRemains(state: ClusterState): Promise<boolean> {
  let ok = true;
  for (const s of state.servers) {
    try {
      const r = await stopRecorded(s);
      say(`  ${s.name.padEnd(10)} ${r === 'stopped' ? `stopped (pid ${s.pid})` : 'was not running'}`);
    } catch (err) {
      ok = false;
      say(`  ${s.name.padEnd(10)} FAILED to stop pid ${s.pid}: ${(err as Error).message}`);
    }
  }
  return ok;
}

async function healthyAll(state: ClusterState): Promise<boolean[]> {
  const info = infoOf(state);
  return Promise.all(state.servers.map(async (s) => isAlive(s) && (await probe(s, info))));
}

async function up(): Promise<number> {
  const config = loadClusterConfig();
  const dir = resolveDir(config.dir);
  const wanted = clusterInfo(config);
  const code = codeFingerprint();
  const state = readState(dir);
  if (state) {
    const health = await healthyAll(state);
    const sameConfig = isDeepStrictEqual(infoOf(state), wanted);
    const sameCode = state.code === code;
    if (sameConfig && sameCode && state.complete && health.every(Boolean)) {
      say(`cluster already up (since ${state.startedAt}):`);
      printUrls(wanted);
      return 0;
    }
    say(
      !sameConfig ? 'recorded cluster has other settings; stopping it:'
      : !sameCode ? 'recorded cluster runs older code; stopping it:'
      : 'recorded cluster is not fully up; stopping what is left of it:',
    );
    if (!(await stopRemains(state))) return 1;
    removeState(dir);
  }
  say(`starting the cluster in ${dir} ...`);
  // Each pid is recorded the moment it is spawned, so even if this command dies half-way
  // (Ctrl-C, a closed pipe) `down` still finds every detached server it left running.
  const startedAt = new Date().toISOString();
  let servers: RecordedServer[] = [];
  const save = (complete: boolean) => writeState(dir, { ...wanted, startedAt, code, complete, servers: inStopOrder(servers) });
  let cluster: RunningCluster;
  try {
    cluster = await startCluster({
      config,
      detached: true,
      log: (l) => say(`  ${l}`),
      onSpawn: ({ name, port, identity }) => {
        servers = [...servers.filter((s) => s.name !== name), { name, port, ...identity }];
        save(false);
      },
    });
  } catch (err) {
    // startCluster already stopped what it started; make sure, then forget the records
    const state = readState(dir);
    if (state && (await stopRemains(state))) removeState(dir);
    throw err;
  }
  save(true);
  say('cluster up:');
  printUrls(cluster.info);
  return 0;
}

async function down(): Promise<number> {
  const dir = resolveDir(loadClusterConfig().dir);
  const state = readState(dir);
  if (!state) {
    say(`no cluster recorded in ${dir}; nothing to stop`);
    return 0;
  }
  say('stopping the cluster:');
  const ok = await stopRemains(state);
  if (!ok) return 1; // keep the record so a second `down` can retry
  removeState(dir);
  say('cluster down');
  return 0;
}

async function status(): Promise<number> {
  const dir = resolveDir(loadClusterConfig().dir);
  const state = readState(dir);
  if (!state) {
    say(`no cluster recorded in ${dir} (start one with: npm run cluster -- up)`);
    return 3;
  }
  const health = await healthyAll(state);
  state.servers.forEach((s, i) => {
    const alive = isAlive(s);
    const word = health[i] ? 'up' : alive ? 'unhealthy' : 'down';
    say(`  ${s.name.padEnd(10)} ${word.padEnd(9)} 127.0.0.1:${s.port}  pid ${s.pid}`);
  });
  if (!state.complete) say('  (the `up` that started these did not finish)');
  return state.complete && health.every(Boolean) ? 0 : 3;
}

const commands: Record<string, () => Promise<number>> = { up, down, status };
const cmd = process.argv[2] ?? '';
const run = commands[cmd];
if (!run) {
  console.error('usage: npm run cluster -- up|down|status');
  process.exit(2);
}
run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster ${cmd} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
