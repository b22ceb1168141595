// The server binaries the native cluster needs, and the Debian packages that provide them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Binaries {
  mariadbd: string;
  mariadbInstallDb: string;
  redisServer: string;
  java: string;
  zookeeperJar: string;
  nginx: string;
  etcd: string;
  /** PostgreSQL's initdb and server, from its versioned folder (/usr/lib/postgresql/15/bin). */
  initdb: string;
  postgres: string;
}

const SEARCH = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/sbin'];

/** The first of `names` found as an executable on PATH or in the usual system folders. */
export function findExecutable(names: string[]): string | undefined {
  for (const name of names) {
    for (const dir of SEARCH) {
      if (!dir) continue;
      const p = path.join(dir, name);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      } catch {
        // keep looking
      }
    }
  }
  return undefined;
}

const ZK_JAR = '/usr/share/java/zookeeper.jar';
const POSTGRES_LIB = '/usr/lib/postgresql';

/** A PostgreSQL program from the newest version Debian installed (its bin is not on PATH). */
function postgresProgram(name: string): string | undefined {
  const versions = fs.existsSync(POSTGRES_LIB)
    ? fs
        .readdirSync(POSTGRES_LIB)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.map((v) => path.join(POSTGRES_LIB, v, 'bin', name)).find((p) => fs.existsSync(p));
}

function locate(): { found: Partial<Binaries>; missing: string[] } {
  const found: Partial<Binaries> = {
    mariadbd: findExecutable(['mariadbd', 'mysqld']),
    mariadbInstallDb: findExecutable(['mariadb-install-db', 'mysql_install_db']),
    redisServer: findExecutable(['redis-server']),
    java: findExecutable(['java']),
    zookeeperJar: fs.existsSync(ZK_JAR) ? ZK_JAR : undefined,
    nginx: findExecutable(['nginx']),
    etcd: findExecutable(['etcd']),
    initdb: postgresProgram('initdb'),
    postgres: postgresProgram('postgres'),
  };
  const missing = new Set<string>();
  if (!found.mariadbd || !found.mariadbInstallDb) missing.add('mariadb-server');
  if (!found.redisServer) missing.add('redis-server');
  if (!found.java || !found.zookeeperJar) missing.add('zookeeper');
  if (!found.nginx) missing.add('nginx');
  if (!found.etcd) missing.add('etcd-server');
  if (!found.initdb || !found.postgres) missing.add('postgresql');
  return { found, missing: [...missing] };
}

let cached: Binaries | undefined;

/**
 * Installs Debian packages non-interactively when we are root; otherwise fails naming the command
 * to run.
 */
export function aptInstall(packages: string[], log: (line: string) => void = () => undefined): void {
  const cmd = `apt-get update && apt-get install -y ${packages.join(' ')}`;
  if (process.getuid?.() !== 0) throw new Error(`missing Debian packages: ${packages.join(', ')}; install them with: sudo ${cmd}`);
  log(`installing missing Debian packages: ${packages.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // apt-get's output is progress for people: stderr, so a command's stdout stays its results
  const stdio = ['ignore', 2, 2] as const;
  try {
    // Two installs at once (test workers side by side, a lab beside them) wait for each other's
    // dpkg lock instead of failing at once.
    const wait = ['-o', 'DPkg::Lock::Timeout=300'];
    execFileSync('apt-get', [...wait, 'update'], { stdio: [...stdio], env });
    execFileSync('apt-get', [...wait, 'install', '-y', '--no-install-recommends', ...packages], { stdio: [...stdio], env });
  } catch (err) {
    throw new Error(`could not install ${packages.join(', ')} (${(err as Error).message}); try: ${cmd}`);
  }
}

/** Finds every binary, installing the Debian packages of missing ones (see aptInstall). */
export function ensureBinaries(log: (line: string) => void = () => undefined): Binaries {
  if (cached) return cached;
  let { found, missing } = locate();
  if (missing.length > 0) {
    aptInstall(missing, log);
    ({ found, missing } = locate());
    if (missing.length > 0) throw new Error(`still missing after apt-get install: ${missing.join(', ')}`);
  }
  cached = found as Binaries;
  return cached;
}

/**
 * The first of `names` found, after installing `debianPackage` if none is (see aptInstall): what a
 * test or a tool needs beyond the cluster's servers (Prometheus for the metrics test), installed the
 * way the cluster's are, so `npm test` needs nothing installed by hand.
 */
export function ensureExecutable(names: string[], debianPackage: string, log: (line: string) => void = () => undefined): string {
  const found = findExecutable(names);
  if (found) return found;
  aptInstall([debianPackage], log);
  const installed = findExecutable(names);
  if (!installed) throw new Error(`still missing after apt-get install ${debianPackage}: ${names.join(' or ')}`);
  return installed;
}
