// One supervised server process: start (and wait until healthy), stop gracefully, or kill like a crash.
import { pollUntil, remaining } from '../time.js';
import { isPortFreeAt, LOOPBACK, waitPortFree } from './ports.js';
import { identify, killGroup, logTail, spawnLogged, terminateGroup, type ProcessIdentity, type Spawned } from './processes.js';
import type { ServerHandle, ServerOptions, SpawnEvent } from './types.js';

export interface ServerSpec {
  name: string;
  port: number;
  /** The address it listens on: loopback, or its own in the hosts topology. */
  host?: string;
  /** The network namespace it runs in (the hosts topology); absent: the machine's own. */
  namespace?: string;
  logFile: string;
  /** runs before every start: write config files, initialise a data dir on first run */
  prepare?: () => Promise<void> | void;
  launch: () => { command: string; args: string[]; env?: NodeJS.ProcessEnv; cwd?: string };
  healthy: () => Promise<boolean>;
  startTimeoutMs: number;
  /** how long SIGTERM gets before SIGKILL */
  stopGraceMs: number;
  /** other logs worth quoting when it fails (nginx's error.log) */
  extraLogs?: string[];
}

export class ManagedServer implements ServerHandle {
  private current: Spawned | undefined;

  private readonly detached: boolean;
  private readonly log: (line: string) => void;
  private readonly onSpawn: ((event: SpawnEvent) => void) | undefined;

  constructor(
    private readonly spec: ServerSpec,
    opts: ServerOptions = {},
  ) {
    this.detached = opts.detached ?? false;
    this.log = opts.log ?? (() => undefined);
    this.onSpawn = opts.onSpawn;
  }

  get name(): string {
    return this.spec.name;
  }
  get port(): number {
    return this.spec.port;
  }
  get host(): string {
    return this.spec.host ?? LOOPBACK;
  }
  get namespace(): string | undefined {
    return this.spec.namespace;
  }
  get pid(): number | undefined {
    return this.current?.pid;
  }

  describeFailure(reason: string): Error {
    const logs = [this.spec.logFile, ...(this.spec.extraLogs ?? [])].map((f) => `--- ${f} (tail)\n${logTail(f)}`).join('\n');
    return new Error(`${this.spec.name} (port ${this.spec.port}): ${reason}\n${logs}`);
  }

  async start(): Promise<void> {
    if (this.current) return;
    const { name, port } = this.spec;
    const host = this.host;
    if (!(await isPortFreeAt(host, port))) throw new Error(`${name}: port ${host}:${port} is already in use by another process`);
    const tPrepare = Date.now();
    await this.spec.prepare?.();
    const t0 = Date.now();
    const prepared = t0 - tPrepare > 50 ? `prepare ${t0 - tPrepare} ms, ` : '';
    const launch = inNamespace(this.spec.launch(), this.spec.namespace);
    const spawned = spawnLogged({ name, ...launch, logFile: this.spec.logFile, detached: this.detached });
    this.current = spawned;
    const identity = await identifyAfterExec(spawned.pid);
    if (identity) this.onSpawn?.({ name, port, host, identity });
    let exitReason: string | undefined;
    void spawned.exited.then((reason) => {
      exitReason = reason;
      if (this.current === spawned) this.current = undefined; // it died on its own
    });
    // A server that exits while we wait fails the start at once, with its log.
    const healthy = await pollUntil(
      () => {
        if (exitReason !== undefined) throw this.describeFailure(`exited (${exitReason}) before becoming healthy`);
        return this.spec.healthy();
      },
      remaining(t0 + this.spec.startTimeoutMs),
    );
    if (!healthy) {
      await killGroup(spawned.pid, name).catch(() => undefined);
      this.current = undefined;
      throw this.describeFailure(`not healthy after ${this.spec.startTimeoutMs} ms`);
    }
    this.log(`${name} ready on ${host}:${port} (pid ${spawned.pid}, ${prepared}ready in ${Date.now() - t0} ms)`);
  }

  async stop(): Promise<void> {
    const spawned = this.current;
    if (spawned) {
      await terminateGroup(spawned.pid, this.spec.stopGraceMs, this.spec.name);
      await spawned.exited;
      this.current = undefined;
    }
    await waitPortFree(this.spec.port, 10_000, this.spec.name, this.host);
  }

  async kill(): Promise<void> {
    const spawned = this.current;
    if (!spawned) return;
    await killGroup(spawned.pid, this.spec.name);
    await spawned.exited;
    this.current = undefined;
  }
}

type Launch = ReturnType<ServerSpec['launch']>;

/** The launch run through `ip netns exec`, which enters the namespace and then execs the server (same pid). */
function inNamespace(launch: Launch, namespace: string | undefined): Launch {
  if (!namespace) return launch;
  return { ...launch, command: 'ip', args: ['netns', 'exec', namespace, launch.command, ...launch.args] };
}

/** Launchers that exec the server in their own place: `ip netns exec`, and setpriv (PostgreSQL's user). */
const EXEC_WRAPPERS = ['ip netns exec', 'setpriv '];

/**
 * Whether a command line read from /proc is the server's own: not a launcher's, and not empty. It
 * reads empty while the kernel swaps one program for the next (`ip netns exec` exec'ing the server):
 * an identity taken then matched no process later, so `down` passed the server by as not running
 * and deleted the namespace it still ran in (issue 51; 22 of 300 `ip netns exec` launches read so).
 */
export function isServerCommandLine(cmdline: string): boolean {
  return cmdline !== '' && !EXEC_WRAPPERS.some((w) => cmdline.startsWith(w));
}

/**
 * The server's identity once its launchers have exec'd it: recorded before, its command line would
 * be theirs (or empty, mid-exec), and a later check would take the server for another process.
 */
export async function identifyAfterExec(pid: number): Promise<ProcessIdentity | undefined> {
  let last = identify(pid);
  await pollUntil(
    () => {
      last = identify(pid);
      return last === undefined || isServerCommandLine(last.cmdline);
    },
    5_000,
    2,
  );
  return last;
}
