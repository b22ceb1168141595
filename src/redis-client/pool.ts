import type { Redis } from 'ioredis';
import { remaining } from '../time.js';
import { redisCall } from './call.js';

/**
 * A bounded set of dedicated connections, for commands whose state lives on the connection:
 * WATCH on the shared connection would watch for every request at once. Connections open on
 * demand up to `size`; beyond that callers queue until one is free or their deadline passes.
 */
export class ConnectionPool {
  private readonly idle: Redis[] = [];
  private readonly waiters: Array<(conn: Redis) => void> = [];
  private readonly opened = new Set<Redis>();

  constructor(
    private readonly open: () => Redis,
    readonly size: number,
  ) {}

  /** Runs `work` on a connection of its own; `onTimeout` makes the error when none frees up before `deadline`. */
  async use<T>(deadline: number, onTimeout: () => Error, work: (conn: Redis) => Promise<T>): Promise<T> {
    const conn = await this.take(deadline, onTimeout);
    try {
      return await work(conn);
    } finally {
      this.give(conn);
    }
  }

  close(): void {
    for (const conn of this.opened) conn.disconnect();
    this.opened.clear();
    this.idle.length = 0;
  }

  private async take(deadline: number, onTimeout: () => Error): Promise<Redis> {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.opened.size < this.size) return this.connectOne();
    return new Promise<Redis>((resolve, reject) => {
      const waiter = (conn: Redis) => {
        clearTimeout(timer);
        resolve(conn);
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(onTimeout());
      }, remaining(deadline));
      this.waiters.push(waiter);
    });
  }

  private async connectOne(): Promise<Redis> {
    const conn = this.open();
    this.opened.add(conn);
    try {
      await redisCall(() => conn.connect());
      return conn;
    } catch (err) {
      this.opened.delete(conn);
      conn.disconnect();
      throw err;
    }
  }

  private give(conn: Redis): void {
    if (!this.opened.has(conn)) return; // closed meanwhile
    const waiter = this.waiters.shift();
    if (waiter) waiter(conn);
    else this.idle.push(conn);
  }
}
