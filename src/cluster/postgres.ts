// PostgreSQL from Debian's packages with its data under <dir>/postgres. PostgreSQL refuses to run
// as root: as root, initdb and the server run as the `postgres` user Debian's package creates,
// with the one capability that lets them reach their folder inside the cluster's private dir.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { PostgresConfig } from '../config.js';
import { IDLE_TRANSACTION_TIMEOUT_S_DEFAULT } from '../env.js';
import type { ClusterConfig } from './layout.js';
import type { Binaries } from './packages.js';
import { ON_LOOPBACK, type Placement } from './placement.js';
import { logHeader } from './processes.js';
import type { ServerSpec } from './server.js';
import { copyTemplate } from './templates.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const RUN_AS = 'postgres';

export type PostgresLogin = Pick<PostgresConfig, 'host' | 'port' | 'user' | 'password'>;

/** Logs in over TCP as the lab user (to `database`, by default the always-present `postgres`) and runs SELECT 1. */
export async function postgresPing(login: PostgresLogin, timeoutMs = 2_000, database = 'postgres'): Promise<boolean> {
  const client = new pg.Client({ ...login, database, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `command args…` as the postgres user when we are root. setpriv execs in place (the pid stays the
 * server's), and the ambient CAP_DAC_READ_SEARCH lets it pass the root-owned 0700 cluster dir on
 * the way to its own data; it can read nothing else there, for the files are root's and 0600.
 */
export function asPostgresUser(command: string, args: string[]): { command: string; args: string[] } {
  if (!isRoot) return { command, args };
  return {
    command: 'setpriv',
    args: [`--reuid=${RUN_AS}`, `--regid=${RUN_AS}`, '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search', command, ...args],
  };
}

/** The native PostgreSQL of a cluster (its login and its idle-in-transaction bound), on `port`. */
export function postgresSpec(
  cluster: Pick<ClusterConfig, 'postgres' | 'idleTransactionSeconds'>,
  port: number,
  dir: string,
  bin: Binaries,
  place: Placement = ON_LOOPBACK,
): ServerSpec {
  const login = cluster.postgres;
  const home = path.join(dir, 'postgres');
  const dataDir = path.join(home, 'data');
  const logFile = path.join(dir, 'logs', 'postgres.log');
  const marker = path.join(home, '.stocklab-installed');
  return {
    name: 'postgres',
    port,
    ...place,
    logFile,
    startTimeoutMs: 30_000,
    stopGraceMs: 10_000,
    async prepare() {
      if (fs.existsSync(marker)) return;
      // First run (or a half-finished one): a fresh database cluster, its superuser the lab user,
      // copied from its template.
      fs.rmSync(home, { recursive: true, force: true });
      fs.mkdirSync(home, { recursive: true, mode: 0o700 });
      if (isRoot) await run('chown', [`${RUN_AS}:${RUN_AS}`, home]);
      logHeader(logFile, 'initdb');
      const settings = ['-U', login.user, '--auth=scram-sha-256', '-E', 'UTF8'];
      const identity = { binaries: [bin.initdb, bin.postgres], settings: [...settings, `password ${login.password}`] };
      const template = await copyTemplate('postgres', dataDir, identity, async (into) => {
        fs.mkdirSync(into, { mode: 0o700 });
        const pwFile = path.join(home, 'pw');
        fs.writeFileSync(pwFile, `${login.password}\n`, { mode: 0o600 });
        if (isRoot) await run('chown', [`${RUN_AS}:${RUN_AS}`, into, pwFile]);
        const initdb = asPostgresUser(bin.initdb, ['-D', into, ...settings, `--pwfile=${pwFile}`, '--no-sync', '--no-instructions']);
        try {
          const { stdout, stderr } = await run(initdb.command, initdb.args, { cwd: home });
          fs.appendFileSync(logFile, stdout + stderr);
        } catch (err) {
          const e = err as Error & { stdout?: string; stderr?: string };
          fs.appendFileSync(logFile, `${e.stdout ?? ''}${e.stderr ?? ''}`);
          throw new Error(`postgres: initdb failed: ${e.message} (see ${logFile})`);
        } finally {
          fs.rmSync(pwFile, { force: true });
        }
        // (root's file, readable by all: the server only reads it.) Password logins over TCP from any address: the server listens on loopback, or on its own
        // address on a private bridge that only the cluster and the machine reach.
        fs.writeFileSync(
          path.join(into, 'pg_hba.conf'),
          ['# written by stocklab (src/cluster/postgres.ts)', 'host all all 0.0.0.0/0 scram-sha-256', ''].join('\n'),
        );
      });
      fs.appendFileSync(logFile, `the data directory is a copy of ${template}\n`);
      fs.writeFileSync(marker, new Date().toISOString() + '\n');
    },
    launch: () =>
      asPostgresUser(bin.postgres, [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        `listen_addresses=${place.host}`,
        // TCP only: no socket file to place (or to collide on) anywhere.
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=500', // 3+ instances × pool of 20, plus bench and test connections
        // A lab, not a bank (as MariaDB's flush once a second): a commit does not wait for its WAL
        // flush, so the bench measures locking, not the disk. A crash may lose the last commits,
        // never apply half of one.
        '-c',
        'synchronous_commit=off',
        // A client cut off inside a transaction keeps its row and advisory locks until this ends
        // its session (as MariaDB's idle-transaction-timeout, and for the same reasons).
        '-c',
        `idle_in_transaction_session_timeout=${cluster.idleTransactionSeconds ?? IDLE_TRANSACTION_TIMEOUT_S_DEFAULT}s`,
        '-c',
        'logging_collector=off',
        // Its statement counts: what `npm run round-trips` reads for PostgreSQL's messages per sale.
        '-c',
        'shared_preload_libraries=pg_stat_statements',
      ]),
    healthy: () => postgresPing({ host: place.host, port, ...login }),
  };
}
