// One ZooKeeper session per instance, shared by every ZooKeeper lock recipe. It owns the client,
// turns callbacks into bounded promises and tells holders when what they created may be gone.
import { setMaxListeners } from 'node:events';
import { CreateMode, Exception, State, createClient, type Client, type Event, type Stat } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import type { Logger } from '../../logger.js';
import { remaining } from '../../time.js';

export interface ZkSessionOptions {
  connect: string;
  sessionTimeoutMs: number;
  /** Persistent parent of every lock node, created once per session. */
  root: string;
  logger: Logger;
}

/**
 * A ZooKeeper call outlived the caller's deadline. A lock wait turns it into a LockTimeoutError; any
 * other call (a fencing token's read, a release) met a ZooKeeper that does not answer, which is the
 * documented 503 zookeeper_unavailable, never a 500.
 */
export class ZkDeadlineError extends DependencyDownError {
  constructor() {
    super('zookeeper', new Error("no answer within the call's deadline"));
  }
}

type Callback<T> = (error: Error | Exception | null, value: T) => void;

/** The client's error code, when `err` is a ZooKeeper exception. */
export function zkCode(err: unknown): number | undefined {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}

const downCodes = new Set([Exception.CONNECTION_LOSS, Exception.SESSION_EXPIRED, Exception.OPERATION_TIMEOUT]);

/** An error the client made up itself (the connection dropped, a request timed out): not an answer from ZooKeeper. */
const isLocal = (err: unknown): boolean => err instanceof Error && downCodes.has(zkCode(err) ?? 0);

/** The watchdog looks this many times a session: the silence it allows is then judged within a tenth of it. */
const TICKS_PER_SESSION = 10;
/**
 * Silent this share of the session timeout, the session is given up on and its holders told: one
 * tick short of half, so that with the tick it takes to notice, they know by half the timeout.
 */
const SILENCE_LIMIT = 1 / 2 - 1 / TICKS_PER_SESSION;

export class ZkSession {
  private client: Client;
  /**
   * Aborted the moment this instance may no longer own its ephemeral nodes: the connection dropped
   * (the session may expire before it comes back) or the session expired. A fresh one starts on
   * reconnect; leases keep the one they were granted under.
   */
  private generation = newGeneration();
  private closed = false;
  /** When the current client last stopped being connected (or was created); undefined while connected. */
  private downSince: number | undefined;
  /** When the current client last heard from ZooKeeper (its handshake or any answer); undefined while it has no connection. */
  private lastHeard: number | undefined;
  /** The client whose heartbeat is still unanswered, if any: one at a time. */
  private heartbeatOut: Client | undefined;
  private lastTick = Date.now();
  private readonly watchdog: NodeJS.Timeout;
  /** Clean-ups the current session still owes (see `owe`). */
  private readonly owed = new Set<() => Promise<unknown>>();
  private paying = false;

  private constructor(private readonly opts: ZkSessionOptions) {
    this.client = this.newClient();
    const tickMs = Math.max(50, opts.sessionTimeoutMs / TICKS_PER_SESSION);
    this.watchdog = setInterval(() => this.checkAlive(tickMs), tickMs);
    this.watchdog.unref();
  }

  /**
   * The client has no timeouts of its own once a socket is open, and a socket can stay open with
   * nobody answering on it: a ZooKeeper starting up that never answers the handshake, a partition
   * that drops packets, or one that dropped a connection it took over from a second client of the
   * same session (seen with ZooKeeper 3.8: the client believes itself connected for good). So: down
   * longer than a session lasts, or connected and silent for half of it, and this session starts
   * over with a new client, telling its holders first, by half, measured from the last answer: in a
   * partition the server expires the session (and the next holder may be granted) one whole session
   * after it last heard from this one, so a holder must know it lost the lock well before that.
   */
  private checkAlive(tickMs: number): void {
    const now = Date.now();
    // This process itself was paused (SIGSTOP, a long GC): answers may be waiting unread; judge next tick.
    const paused = now - this.lastTick > 3 * tickMs;
    this.lastTick = now;
    if (this.closed || paused) return;
    if (this.lastHeard !== undefined) {
      if (now - this.lastHeard > this.opts.sessionTimeoutMs * SILENCE_LIMIT) {
        this.startNewSession('no answer from ZooKeeper for nearly half the session timeout');
      } else if (this.connected && this.heartbeatOut === undefined) {
        const client = this.client;
        this.heartbeatOut = client;
        client.exists(this.opts.root, (err) => {
          if (this.heartbeatOut === client) this.heartbeatOut = undefined;
          if (!isLocal(err)) this.heard(client);
        });
      }
    } else if (this.downSince !== undefined && now - this.downSince > this.opts.sessionTimeoutMs) {
      this.startNewSession('no connection to ZooKeeper for longer than the session timeout');
    }
  }

  /** `client` heard from ZooKeeper just now. */
  private heard(client: Client): void {
    if (client === this.client) this.lastHeard = Date.now();
  }

  /** Connects, waiting at most `waitMs`; a ZooKeeper that is down is not fatal (calls answer 503). */
  static async open(opts: ZkSessionOptions, waitMs: number): Promise<ZkSession> {
    const session = new ZkSession(opts);
    if (!(await session.waitConnected(waitMs))) opts.logger.warn({ connect: opts.connect }, 'zookeeper not reachable yet; continuing');
    return session;
  }

  get connected(): boolean {
    return !this.closed && this.client.getState() === State.SYNC_CONNECTED && !this.generation.signal.aborted;
  }

  /** The signal a lease granted now should carry as its `lost`. */
  get holdSignal(): AbortSignal {
    return this.generation.signal;
  }

  get timeoutMs(): number {
    return this.opts.sessionTimeoutMs;
  }

  get root(): string {
    return this.opts.root;
  }

  /** Identity and password of the current session (lets a test expire it from a second client). */
  get credentials(): { id: Buffer; password: Buffer } {
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  /** Resolves true once connected (and the root exists), false if `waitMs` passes first. */
  async waitConnected(waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while (!this.closed && remaining(deadline) > 0) {
      if (this.connected) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.connected;
  }

  create(path: string, data: string, mode: 'ephemeral' | 'sequential' | 'persistent', deadline: number): Promise<string> {
    const m = { ephemeral: CreateMode.EPHEMERAL, sequential: CreateMode.EPHEMERAL_SEQUENTIAL, persistent: CreateMode.PERSISTENT }[mode];
    return this.call<string>(
      (c, cb) => c.create(path, Buffer.from(data), m, cb),
      deadline,
      (created) => {
        // The create landed after we gave up: nobody will ever release it, so remove it now.
        if (mode !== 'persistent') this.removeQuietly(created);
      },
    );
  }

  /** True when removed, false when it was already gone. */
  async remove(path: string, deadline: number): Promise<boolean> {
    try {
      await this.call<void>((c, cb) => c.remove(path, -1, (err) => cb(err, undefined)), deadline);
      return true;
    } catch (err) {
      if (zkCode(err) === Exception.NO_NODE) return false;
      throw err;
    }
  }

  /**
   * A clean-up this session owes (a delete after a call whose outcome is unknown, or that may not
   * have reached ZooKeeper): run now if connected, and again after every reconnect of this same
   * session until it succeeds. A new session drops them: the old one's ephemeral nodes went with it.
   */
  owe(task: () => Promise<unknown>): void {
    this.owed.add(task);
    void this.payOwed();
  }

  /** Deletes `path` (an ephemeral node this session may still hold), retried after reconnects until ZooKeeper confirms it gone. */
  removeQuietly(path: string): void {
    this.owe(() => this.remove(path, Date.now() + this.opts.sessionTimeoutMs));
  }

  /** Runs each owed clean-up once while connected; one that fails on a lost connection stays owed. */
  private async payOwed(): Promise<void> {
    if (this.paying) return;
    this.paying = true;
    const tried = new Set<() => Promise<unknown>>();
    try {
      for (let task = this.nextOwed(tried); task && this.connected; task = this.nextOwed(tried)) {
        tried.add(task);
        try {
          await task();
          this.owed.delete(task);
        } catch (err) {
          if (err instanceof DependencyDownError) continue;
          this.owed.delete(task);
          this.opts.logger.warn({ err }, 'zookeeper: a clean-up failed and is not retried');
        }
      }
    } finally {
      this.paying = false;
    }
  }

  private nextOwed(tried: Set<() => Promise<unknown>>): (() => Promise<unknown>) | undefined {
    for (const task of this.owed) if (!tried.has(task)) return task;
    return undefined;
  }

  /** The node's children; with `watcher`, it fires once on the next change to them (or the node's deletion). */
  getChildren(path: string, deadline: number, watcher?: (event: Event) => void): Promise<string[]> {
    return this.call<string[]>((c, cb) => (watcher ? c.getChildren(path, watcher, cb) : c.getChildren(path, cb)), deadline);
  }

  /** The node's stat, or undefined; with `watcher`, it fires once on the node's next change or deletion. */
  exists(path: string, deadline: number, watcher?: (event: Event) => void): Promise<Stat | undefined> {
    return this.call<Stat | undefined>(
      (c, cb) => (watcher ? c.exists(path, watcher, (e, s) => cb(e, s ?? undefined)) : c.exists(path, (e, s) => cb(e, s ?? undefined))),
      deadline,
    );
  }

  async getData(path: string, deadline: number): Promise<string | undefined> {
    return (await this.getDataAndStat(path, deadline))?.data;
  }

  /**
   * The node's data and stat, read together, or undefined when it does not exist. With `watcher`, it
   * fires once on the node's next change or deletion (when the node exists).
   */
  async getDataAndStat(path: string, deadline: number, watcher?: (event: Event) => void): Promise<{ data: string; stat: Stat } | undefined> {
    try {
      return await this.call<{ data: string; stat: Stat }>((c, cb) => {
        const done = (e: Error | Exception | null, data: Buffer, stat: Stat) => cb(e, { data: data?.toString() ?? '', stat });
        if (watcher) c.getData(path, watcher, done);
        else c.getData(path, done);
      }, deadline);
    } catch (err) {
      if (zkCode(err) === Exception.NO_NODE) return undefined;
      throw err;
    }
  }

  /**
   * Writes `data` if the node's version still is `version` (-1: whatever it is): a compare-and-set.
   * Rejects with the client's BAD_VERSION when another write came first, NO_NODE when it is gone.
   */
  setData(path: string, data: string, version: number, deadline: number): Promise<Stat> {
    return this.call<Stat>((c, cb) => c.setData(path, Buffer.from(data), version, cb), deadline);
  }

  mkdirp(path: string, deadline: number): Promise<string> {
    return this.call<string>((c, cb) => c.mkdirp(path, cb), deadline);
  }

  /** Deletes every ephemeral node under the root (leftover locks), keeping the persistent queue nodes. */
  async clearEphemeralNodes(path = this.opts.root): Promise<void> {
    const deadline = Date.now() + this.opts.sessionTimeoutMs;
    for (const child of await this.getChildren(path, deadline)) {
      const full = `${path}/${child}`;
      const stat = await this.exists(full, deadline);
      if (!stat) continue;
      if (stat.numChildren > 0) await this.clearEphemeralNodes(full);
      else if (stat.ephemeralOwner.some((b) => b !== 0)) await this.remove(full, deadline);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    this.generation.abort('zookeeper session closed');
    const client = this.client;
    await new Promise<void>((resolve) => {
      client.once('disconnected', () => resolve());
      client.close();
      setTimeout(resolve, 1_000).unref();
    });
  }

  /**
   * Runs one client call bounded by `deadline`. Not connected → a fast DependencyDownError instead of
   * a request queued until ZooKeeper returns; `late` receives a result that arrives after the deadline.
   */
  private call<T>(run: (client: Client, cb: Callback<T>) => void, deadline: number, late?: (value: T) => void): Promise<T> {
    if (!this.connected) return Promise.reject(new DependencyDownError('zookeeper', new Error('not connected to ZooKeeper')));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new ZkDeadlineError());
      }, remaining(deadline));
      const client = this.client;
      run(client, (err, value) => {
        clearTimeout(timer);
        if (!isLocal(err)) this.heard(client);
        if (settled) {
          if (!err) late?.(value);
          return;
        }
        settled = true;
        if (!err) resolve(value);
        else reject(downCodes.has(zkCode(err) ?? 0) ? new DependencyDownError('zookeeper', err) : err);
      });
    });
  }

  private newClient(): Client {
    const client = createClient(this.opts.connect, { sessionTimeout: this.opts.sessionTimeoutMs, spinDelay: 200 });
    startEachConnectionClean(client);
    client.on('connected', () => this.onConnected(client));
    this.downSince = Date.now();
    client.on('disconnected', () => {
      if (client !== this.client || this.closed) return;
      this.downSince = Date.now();
      this.lastHeard = undefined;
      this.generation.abort('connection to ZooKeeper lost; the session may expire and its lock nodes with it');
      this.opts.logger.warn('zookeeper connection lost; held zk locks are treated as lost');
    });
    client.on('expired', () => this.onExpired(client));
    client.connect();
    return client;
  }

  private onConnected(client: Client): void {
    if (client !== this.client || this.closed) return;
    // A new generation starts only once the root exists; until then `connected` stays false.
    this.generation.abort('zookeeper reconnecting');
    // The handshake was an answer; the root's creation is timed from it like any request.
    this.heard(client);
    client.mkdirp(this.opts.root, (err) => {
      if (!isLocal(err)) this.heard(client);
      if (client !== this.client || this.closed) return;
      if (err) {
        this.opts.logger.error({ err }, 'zookeeper: cannot create the lock root');
        return;
      }
      this.generation = newGeneration();
      this.downSince = undefined;
      this.opts.logger.info({ sessionId: client.getSessionId().toString('hex') }, 'zookeeper connected');
      void this.payOwed();
    });
  }

  /** The session is gone for good, and every ephemeral node with it: tell holders, start a new session. */
  private onExpired(client: Client): void {
    if (client !== this.client || this.closed) return;
    this.startNewSession('zookeeper session expired; its lock nodes were deleted');
  }

  private startNewSession(reason: string): void {
    this.owed.clear();
    this.heartbeatOut = undefined;
    this.lastHeard = undefined;
    this.generation.abort(reason);
    this.opts.logger.warn({ reason }, 'zookeeper: opening a new session');
    this.client.close();
    this.client = this.newClient();
  }
}

/** What startEachConnectionClean reaches inside node-zookeeper-client 1.1's ConnectionManager. */
interface ConnectionInternals {
  pendingBuffer: Buffer | null;
  socket?: { destroy(): void };
  onSocketConnected(this: ConnectionInternals): void;
  onSocketData(this: ConnectionInternals, buffer: Buffer): void;
}

/**
 * node-zookeeper-client 1.1 keeps the bytes of a frame it has only part of (`pendingBuffer`) when its
 * connection drops, and reads the next connection's answers after them: garbage. It then either
 * waits for a frame that never ends (the session never reconnects) or throws from its socket
 * handler ("Unknown code"), an uncaught exception that ends the process; a ZooKeeper server frozen
 * and resumed did both. So each connection starts with no leftover bytes, and a frame the client
 * cannot read drops the connection, as the library does for its other protocol errors (it
 * reconnects, in the same session while that lives). Patched before the client connects: the
 * library binds its handlers at each connect.
 */
function startEachConnectionClean(client: Client): void {
  const manager = (client as unknown as { connectionManager?: ConnectionInternals }).connectionManager;
  if (!manager || typeof manager.onSocketData !== 'function' || typeof manager.onSocketConnected !== 'function') {
    throw new Error('node-zookeeper-client: its ConnectionManager is not the one this patch was written for (1.1)');
  }
  const connected = manager.onSocketConnected;
  const read = manager.onSocketData;
  manager.onSocketConnected = function (this: ConnectionInternals) {
    this.pendingBuffer = null;
    connected.call(this);
  };
  manager.onSocketData = function (this: ConnectionInternals, buffer: Buffer) {
    try {
      read.call(this, buffer);
    } catch {
      this.pendingBuffer = null;
      this.socket?.destroy();
    }
  };
}

/**
 * Grants one ZooKeeper node may serve, each with a token of its own: a process line passes a node's
 * grant from request to request (process-line.ts), the n-th pass adding n to the node's token.
 */
export const ZK_GRANTS_PER_NODE = 1024;
const GRANT_BITS = 10n;

/**
 * A node's fencing token: its czxid (the zxid of the transaction that created it; zxids only grow
 * in an ensemble's life, also across sessions and recreated parents, where sequence numbers restart)
 * shifted to leave room for ZK_GRANTS_PER_NODE grants. Under 2^53, so Redis's Lua compares it exactly,
 * while the ensemble's epoch (the zxid's high 32 bits) stays under 2^11 leader elections.
 */
export function fencingTokenOf(stat: Stat): bigint {
  return stat.czxid.readBigUInt64BE(0) << GRANT_BITS;
}

/**
 * A session generation's controller. Every waiter and holder of the instance listens on its signal
 * (a hundred at once under a bench), so the default warning at 11 listeners is lifted.
 */
function newGeneration(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
