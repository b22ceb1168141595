// A PgBouncer (Debian's package, installed when missing) in front of a cluster's PostgreSQL, set
// up as the incident gallery needs it: transaction pooling, two server connections, PgBouncer's
// defaults otherwise (idle servers handed out last-in first-out; since 1.7 no reset query between
// clients in this mode). In a temp dir on a free loopback port, as the postgres user when root
// (PgBouncer refuses to run as root), stopped by its process group.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PostgresConfig } from '../src/config.js';
import { ensureExecutable } from '../src/cluster/packages.js';
import { freePorts } from '../src/cluster/ports.js';
import { asPostgresUser, postgresPing } from '../src/cluster/postgres.js';
import { spawnLogged, terminateGroup, logTail } from '../src/cluster/processes.js';
import { removeTree } from '../src/paths.js';
import { pollUntil } from '../src/time.js';

/** Server connections per database and user: two, so a client inside a transaction leaves one free. */
export const BOUNCER_POOL_SIZE = 2;

export interface Bouncer {
  /** Where clients connect: PgBouncer's address, the cluster's database and user (no password: trust on loopback). */
  login: Pick<PostgresConfig, 'host' | 'port' | 'user' | 'password' | 'database'>;
  url: string;
  stop(): Promise<void>;
}

type Upstream = Pick<PostgresConfig, 'host' | 'port' | 'user' | 'password' | 'database'>;

function iniOf(upstream: Upstream, port: number, dir: string): string {
  return [
    '; written by stocklab (faults/pgbouncer.ts)',
    '[databases]',
    `${upstream.database} = host=${upstream.host} port=${upstream.port} dbname=${upstream.database} user=${upstream.user} password=${upstream.password}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${BOUNCER_POOL_SIZE}`,
    'max_client_conn = 100',
    // the defaults the incident is about, written out
    'server_reset_query = DISCARD ALL',
    'server_reset_query_always = 0',
    'server_round_robin = 0',
    '',
  ].join('\n');
}

export async function startPgBouncer(upstream: Upstream, log: (line: string) => void = () => undefined): Promise<Bouncer> {
  const bin = ensureExecutable(['pgbouncer'], 'pgbouncer', log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-pgbouncer-'));
  const [port] = (await freePorts(1)) as [number];
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(ini, iniOf(upstream, port, dir), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${upstream.user}" ""\n`, { mode: 0o600 });
  const logFile = path.join(dir, 'pgbouncer.log');
  const run = asPostgresUser(bin, [ini]);
  const proc = spawnLogged({ name: 'pgbouncer', command: run.command, args: run.args, logFile });
  const login = { host: '127.0.0.1', port, user: upstream.user, password: '', database: upstream.database };
  const stop = async () => {
    await terminateGroup(proc.pid, 2_000, 'pgbouncer');
    removeTree(dir);
  };
  const ready = await pollUntil(() => postgresPing(login, 1_000, login.database), 10_000, 100);
  if (!ready) {
    const tail = logTail(logFile);
    await stop();
    throw new Error(`pgbouncer did not answer on 127.0.0.1:${port} within 10 s:\n${tail}`);
  }
  return { login, url: `postgres://${encodeURIComponent(upstream.user)}@127.0.0.1:${port}/${encodeURIComponent(upstream.database)}`, stop };
}
