// MariaDB (the MySQL-compatible server Debian ships) with its data under <dir>/mysql.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { IDLE_TRANSACTION_TIMEOUT_S_DEFAULT } from '../env.js';
import type { ClusterConfig } from './layout.js';
import type { Binaries } from './packages.js';
import { logHeader } from './processes.js';
import { placementOf } from './placement.js';
import { mysqlPing } from './probes.js';
import type { ServerSpec } from './server.js';
import { copyTemplate } from './templates.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
function sqlIdent(s: string): string {
  return `\`${s.replace(/`/g, '``')}\``;
}

/**
 * Runs at every server start, before it accepts connections, so the database and the lab user
 * exist (and the password matches the current config) by the time the health probe logs in.
 */
export function initSql(cfg: ClusterConfig): string {
  const { user, password, database } = cfg.mysql;
  // '%' is safe: the server binds 127.0.0.1 only (or, in the hosts topology, its address on a private bridge). With skip-name-resolve, TCP clients are
  // matched by address, so a host-specific grant would have to list 127.0.0.1 explicitly.
  const who = `${sqlString(user)}@'%'`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${sqlIdent(database)} CHARACTER SET utf8mb4;`,
    `CREATE USER IF NOT EXISTS ${who} IDENTIFIED BY ${sqlString(password)};`,
    `ALTER USER ${who} IDENTIFIED BY ${sqlString(password)};`,
    `GRANT ALL PRIVILEGES ON ${sqlIdent(database)}.* TO ${who};`,
    `DROP USER IF EXISTS ''@'localhost';`,
    '',
  ].join('\n');
}

/** A unix socket path must fit in ~107 bytes; deep temp dirs fall back to a short path in /tmp. */
function socketPath(dir: string): string {
  const p = path.join(dir, 'run', 'mysql.sock');
  if (p.length < 100) return p;
  const hash = crypto.createHash('sha1').update(dir).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `stocklab-${hash}.sock`);
}

export function mariadbSpec(cfg: ClusterConfig, dir: string, bin: Binaries): ServerSpec {
  const dataDir = path.join(dir, 'mysql');
  const runDir = path.join(dir, 'run');
  const initFile = path.join(runDir, 'mysql-init.sql');
  const logFile = path.join(dir, 'logs', 'mysql.log');
  const marker = path.join(dataDir, '.stocklab-installed');
  // Its own temp dir, not the shared /tmp: two clusters installing at once collided there (mariadb-install-db: "Could not remove temporary table").
  const tmpDir = path.join(dir, 'mysql-tmp');
  const port = cfg.ports.mysql;
  const place = placementOf(cfg, 'mysql');

  return {
    name: 'mysql',
    port,
    ...place,
    logFile,
    startTimeoutMs: 30_000,
    stopGraceMs: 20_000, // InnoDB flushes on a clean shutdown; give it time before SIGKILL
    async prepare() {
      fs.mkdirSync(runDir, { recursive: true });
      fs.mkdirSync(tmpDir, { recursive: true });
      fs.writeFileSync(initFile, initSql(cfg), { mode: 0o600 }); // holds the password
      if (fs.existsSync(marker)) return;
      // First run (or a half-finished one): a fresh system database, copied from its template.
      fs.rmSync(dataDir, { recursive: true, force: true });
      logHeader(logFile, 'mariadb-install-db');
      const settings = [...(isRoot ? ['--user=root'] : []), '--auth-root-authentication-method=socket', '--skip-test-db'];
      const template = await copyTemplate('mariadb', dataDir, { binaries: [bin.mariadbInstallDb, bin.mariadbd], settings }, async (into) => {
        try {
          const { stdout, stderr } = await run(bin.mariadbInstallDb, ['--no-defaults', `--datadir=${into}`, ...settings, `--tmpdir=${tmpDir}`]);
          fs.appendFileSync(logFile, stdout + stderr);
        } catch (err) {
          const e = err as Error & { stdout?: string; stderr?: string };
          fs.appendFileSync(logFile, `${e.stdout ?? ''}${e.stderr ?? ''}`);
          throw new Error(`mysql: mariadb-install-db failed: ${e.message} (see ${logFile})`);
        }
      });
      fs.appendFileSync(logFile, `the data directory is a copy of ${template}\n`);
      fs.writeFileSync(marker, new Date().toISOString() + '\n');
    },
    launch: () => ({
      command: bin.mariadbd,
      args: [
        '--no-defaults', // ignore /etc/mysql: this server is fully described here
        `--datadir=${dataDir}`,
        `--port=${port}`,
        `--bind-address=${place.host}`,
        `--socket=${socketPath(dir)}`,
        `--pid-file=${path.join(runDir, 'mysql.pid')}`,
        `--tmpdir=${tmpDir}`,
        `--init-file=${initFile}`,
        ...(isRoot ? ['--user=root'] : []), // mariadbd refuses to run as root without it
        // A lab, not a bank: flush the redo log once a second instead of at every commit, and keep
        // no binlog. Commits stop waiting on fsync, so the bench measures locking, not the disk.
        '--innodb-flush-log-at-trx-commit=2',
        '--skip-log-bin',
        '--skip-name-resolve',
        '--max-connections=500', // 3+ instances × pool of 20, plus bench and test connections
        '--character-set-server=utf8mb4',
        // A backstop, not the bound: no statement runs longer than the longest wait a request may
        // ask for (WAIT_MS_MAX 60 s) plus room, whatever holds it up.
        '--max-statement-time=65',
        // A client cut off mid-transaction (a partition drops its packets: no FIN, no RST) would
        // keep its session, and its row locks, until wait_timeout (8 h), and every other deduction
        // of the row would wait and be refused meanwhile. A session idle inside a transaction for
        // IDLE_TRANSACTION_TIMEOUT_S (30 s) is ended instead, and InnoDB rolls its transaction back
        // (nothing uncommitted is ever applied). 30 s is far beyond a healthy holder's idle time there
        // (workMs ≤ WORK_MS_MAX's 10 s, the fault lab's pauses ≤ 8 s); a WORK_MS_MAX raised past it
        // needs this raised too.
        // Idle pooled connections are outside any transaction and never touched. TCP keep-alive
        // would not do: its probes stop while an answer is unacknowledged, as a cut right after a
        // read leaves it, and it ends the cut instance's idle sessions, stale in its pool after.
        `--idle-transaction-timeout=${cfg.idleTransactionSeconds ?? IDLE_TRANSACTION_TIMEOUT_S_DEFAULT}`,
      ],
    }),
    healthy: () => mysqlPing({ host: place.host, port, ...cfg.mysql }),
  };
}
