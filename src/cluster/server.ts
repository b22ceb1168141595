// One supervised server process: start (and wait until healthy), stop gracefully, or kill like a crash.
import { pollUntil, remaining } from '../time.js';
import { isPortFree, waitPortFree } from './ports.js';
import { identify, killGroup, logTail, spawnLogged, terminateGroup, type ProcessIdentity, type Spawned } from './processes.js';
import type { ServerHandle } from './types.js';

export interface ServerSpec {
  name: string;
  port: number;
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

export interface SpawnEvent {
  name: string;
  port: number;
  identity: ProcessIdentity;
}

export interface ServerOptions {
  /** CLI 'up': children survive this process (own process group, logs to files, unref) */
  detached?: boolean;
  log?: (line: string) => void;
  /** called right after each spawn, before the health wait, so a record of the pid can outlive us (`up`) */
  onSpawn?: (event: SpawnEvent) => void;
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
  get pid(): number | undefined {
    return this.current?.pid;
  }

  describeFailure(reason: string): Error {
    const logs = [this.spec.logFile, ...(this.spec.extraLogs ?? [])]
      .map((f) => `--- ${f} (tail)\n${logTail(f)}`)
      .join('\n');
    return new Error(`${this.spec.name} (port ${this.spec.port}): ${reason}\n${logs}`);
  }

  async start(): Promise<void> {
    if (this.current) return;
    const { name, port } = this.spec;
    if (!(await isPortFree(port))) throw new Error(`${name}: port ${port} is already in use by another process`);
    const tPrepare = Date.now();
    await this.spec.prepare?.();
    const t0 = Date.now();
    const prepared = t0 - tPrepare > 50 ? `prepare ${t0 - tPrepare} ms, ` : '';
    const launch = this.spec.launch();
    const spawned = spawnLogged({ name, ...launch, logFile: this.spec.logFile, detached: this.detached });
    this.current = spawned;
    const identity = identify(spawned.pid);
    if (identity) this.onSpawn?.({ name, port, identity });
    let exitReason: string | undefined;
    void spawned.exited.then((reason) => {
      exitReason = reason;
      if (this.current === spawned) this.current = undefined; // it died on its own
    });
    // A server that exits while we wait fails the start at once, with its log.
    const healthy = await pollUntil(() => {
      if (exitReason !== undefined) throw this.describeFailure(`exited (${exitReason}) before becoming healthy`);
      return this.spec.healthy();
    }, remaining(t0 + this.spec.startTimeoutMs));
    if (!healthy) {
      await killGroup(spawned.pid, name).catch(() => undefined);
      this.current = undefined;
      throw this.describeFailure(`not healthy after ${this.spec.startTimeoutMs} ms`);
    }
    this.log(`${name} ready on 127.0.0.1:${port} (pid ${spawned.pid}, ${prepared}ready in ${Date.now() - t0} ms)`);
  }

  async stop(): Promise<void> {
    const spawned = this.current;
    if (spawned) {
      await terminateGroup(spawned.pid, this.spec.stopGraceMs, this.spec.name);
      await spawned.exited;
      this.current = undefined;
    }
    await waitPortFree(this.spec.port, 10_000, this.spec.name);
  }

  async kill(): Promise<void> {
    const spawned = this.current;
    if (!spawned) return;
    await killGroup(spawned.pid, this.spec.name);
    await spawned.exited;
    this.current = undefined;
  }
}
