// A number in one persistent node, changed by compare-and-set on the node's version: what
// Curator's SharedCount and DistributedAtomicLong both stand on. The value is stored as decimal
// text (Curator stores raw bytes), so `get <path>` in zkCli shows it.
import { Exception, type Event, type Stat } from 'node-zookeeper-client';
import { DependencyDownError, OutcomeUnknownError } from '../../dependency.js';
import { zkCode, type ZkSession } from './session.js';

/** A value and the node version it was read at (Curator's VersionedValue). */
export interface VersionedValue {
  value: number;
  version: number;
  /** The zxid of the write that made it: grows across a reset that recreates the node, unlike `version`. */
  mzxid: bigint;
}

export class CounterNode {
  constructor(
    private readonly session: ZkSession,
    readonly path: string,
    /** The value the node starts with when it does not exist yet. */
    private readonly seed: number,
  ) {}

  /** The current value, creating the node with the seed if needed; `watcher` hears of its next change. */
  async read(deadline: number, watcher?: (event: Event) => void): Promise<VersionedValue> {
    for (;;) {
      const node = await this.session.getDataAndStat(this.path, deadline, watcher);
      if (node) return versioned(this.path, node.data, node.stat);
      await this.create(String(this.seed), deadline);
    }
  }

  /**
   * The current value, or undefined when the node does not exist (it is not created); `watcher`
   * hears of the node's next change, its creation included.
   */
  async peek(deadline: number, watcher: (event: Event) => void): Promise<VersionedValue | undefined> {
    const node = await this.session.getDataAndStat(this.path, deadline, watcher);
    if (node) return versioned(this.path, node.data, node.stat);
    // Gone (a reset): watch for the node coming back instead. If it came back meanwhile, read it.
    if (await this.session.exists(this.path, deadline, watcher)) return this.peek(deadline, watcher);
    return undefined;
  }

  /** Writes `next` if the node still is at `previous`'s version; undefined when another write came first. */
  async trySet(previous: VersionedValue, next: number): Promise<VersionedValue | undefined> {
    try {
      return versioned(this.path, String(next), await this.write(String(next), previous.version));
    } catch (err) {
      // Written meanwhile, or deleted by a reset: the caller reads again.
      if (zkCode(err) === Exception.BAD_VERSION || zkCode(err) === Exception.NO_NODE) return undefined;
      throw err;
    }
  }

  /** Writes `next` whatever the value is (Curator's setCount / forceSet). */
  async set(next: number): Promise<VersionedValue> {
    for (;;) {
      try {
        return versioned(this.path, String(next), await this.write(String(next), -1));
      } catch (err) {
        if (zkCode(err) !== Exception.NO_NODE) throw err;
        await this.create(String(next), Date.now() + this.session.timeoutMs);
      }
    }
  }

  /**
   * A write, waited for until ZooKeeper answers (or the session would have ended): once sent, no
   * answer does not mean "not written", and a count must never be told "no" for a write it made.
   */
  private async write(data: string, version: number): Promise<Stat> {
    if (!this.session.connected) throw new DependencyDownError('zookeeper', new Error('not connected to ZooKeeper'));
    try {
      return await this.session.setData(this.path, data, version, Date.now() + this.session.timeoutMs);
    } catch (err) {
      if (err instanceof DependencyDownError) throw new OutcomeUnknownError('zookeeper', err);
      throw err;
    }
  }

  /** Creates the node (and its parents) with `data`, unless another did first. */
  private async create(data: string, deadline: number): Promise<void> {
    try {
      await this.session.create(this.path, data, 'persistent', deadline);
    } catch (err) {
      if (zkCode(err) === Exception.NODE_EXISTS) return;
      if (zkCode(err) !== Exception.NO_NODE) throw err;
      await this.session.mkdirp(this.path.slice(0, this.path.lastIndexOf('/')), deadline);
    }
  }
}

function versioned(path: string, data: string, stat: Stat): VersionedValue {
  const value = Number(data);
  if (!Number.isSafeInteger(value) || data.trim() === '') throw new Error(`counter node ${path} holds "${data.slice(0, 40)}", not a whole number`);
  return { value, version: stat.version, mzxid: stat.mzxid.readBigUInt64BE(0) };
}
