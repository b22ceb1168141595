// The guarded deduction (strategies/guarded.ts) run in this process, over redis-owned on one Redis
// server and the Redis stock on another: a committed write stays a sale whatever its release does
// (a lease already gone → lock_expired_before_release; the lock's Redis unreachable →
// lock_release_failed), and fenced=1 claims the stock with the grant's token and refuses a stale
// one. The order is built by the store itself: what must happen "between the write and the
// release" runs inside its write, after the write committed. The request's other parts are checked
// here too, as only instances (where no mutant is switched on) saw them before: its signal and
// pause points, the Server-Timing hold record, the fair lock's ticket, the warning a failed release
// logs, and fenced=1 on a lock that issues no token.
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FencedError, type FenceSource } from '../../src/fencing.js';
import { HoldRecord } from '../../src/locks/hold-record.js';
import { LockLostError, LockNotHeldError } from '../../src/locks/errors.js';
import type { AcquireOptions, Lease, Lock } from '../../src/locks/lock.js';
import { fairLockKeys, stringLockKey } from '../../src/locks/redis/keys.js';
import { FairLock } from '../../src/locks/redis/redisson/fair.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { ReleaseNotifier } from '../../src/locks/redis/wait/release-notifier.js';
import { createLogger } from '../../src/logger.js';
import { STOCK_LOCK_RESOURCE, redisStockFenceKey } from '../../src/stock/product.js';
import { RedisStock } from '../../src/stock/redis-stock.js';
import type { SaleId } from '../../src/stock/store.js';
import { guardedDeduction } from '../../src/strategies/guarded.js';
import type { DeductRequest, DeductResult, LockedDeduction } from '../../src/strategies/strategy.js';
import { openRedis } from '../support/redis-client.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ redis: 2 });
const LOCK = { ttlMs: 5_000, waitMs: 2_000, retryMs: 20 };

/** The Redis stock, with a step of the test's run right after each write committed. */
class StockWithAfterWrite extends RedisStock {
  afterWrite: () => Promise<void> = async () => undefined;
  override async write(count: number, sale?: SaleId): Promise<void> {
    await super.write(count, sale);
    await this.afterWrite();
  }
}

/**
 * A lock as the deduction sees it, seen from the lock's side: the options each acquire got and each
 * token read. Its leases are the inner lock's, except that `lose()` fires the current one's `lost`,
 * and `failRelease` makes a release fail after giving the lock back. Without `fencing` it names no
 * token source; without `tokens` its leases carry no token: a lock issuing none has neither, and
 * the two halves alone tell apart the checks that need both.
 */
class ObservedLock implements Lock {
  readonly fencing?: FenceSource;
  readonly acquired: AcquireOptions[] = [];
  readonly tokensRead: bigint[] = [];
  failRelease: Error | undefined;
  lose: () => void = () => undefined;

  constructor(
    private readonly inner: Lock,
    private readonly shape: { fencing: boolean; tokens: boolean },
  ) {
    if (shape.fencing) this.fencing = 'redis';
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    this.acquired.push(opts);
    const lease = await this.inner.acquire(resource, opts);
    const lost = new AbortController();
    this.lose = () => lost.abort(new Error('lost by the test'));
    const release = async () => {
      await lease.release();
      if (this.failRelease) throw this.failRelease;
    };
    const token = lease.fencingToken?.bind(lease);
    if (!this.shape.tokens || !token) return { lost: lost.signal, release };
    const fencingToken = async () => {
      const t = await token();
      this.tokensRead.push(t);
      return t;
    };
    return { lost: lost.signal, release, fencingToken };
  }
}

/** A logger whose lines the test reads (pino's JSON, parsed). */
function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: pino({ level: 'info', base: {} }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

const open: Redis[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.disconnect();
});

type Deduct = (req: Partial<DeductRequest>) => Promise<DeductResult>;

interface Setup<L extends Lease> {
  lock?: (lockRedis: Redis, subscriber: Redis) => Lock<L>;
  answer?: LockedDeduction<L>['answer'];
  logger?: Logger;
}

async function setUp<L extends Lease = Lease>(setup: Setup<L> = {}): Promise<{ lockRedis: Redis; stock: StockWithAfterWrite; deduct: Deduct }> {
  const [lockRedis, stockRedis, subscriber] = await Promise.all([...servers.current.redis, servers.current.redis[0]!].map(openRedis));
  open.push(lockRedis!, stockRedis!, subscriber!);
  const stock = new StockWithAfterWrite(stockRedis!);
  await stock.reset(5);
  await stock.client.del(redisStockFenceKey('redis'));
  const fair = fairLockKeys(STOCK_LOCK_RESOURCE);
  await lockRedis!.del(stringLockKey(STOCK_LOCK_RESOURCE), fair.lock, fair.queue, fair.alive, fair.tickets);
  const lock = setup.lock?.(lockRedis!, subscriber!) ?? (new OwnedLock(lockRedis!) as Lock as Lock<L>);
  const deduct = guardedDeduction<L>(
    { logger: setup.logger ?? createLogger('silent'), stock: { redis: stock, mysql: undefined as never, postgres: undefined as never } },
    {
      name: 'redis-owned',
      family: 'redis',
      course: 'beyond the course',
      description: { en: 'test', zh: '测试' },
      expected: { oneInstance: 'exact', threeInstances: 'exact' },
      lock,
      ...(setup.answer && { answer: setup.answer }),
    },
  );
  return {
    lockRedis: lockRedis!,
    stock,
    deduct: (req) => deduct({ workMs: 0, store: 'redis', lock: LOCK, owner: `owner-${Math.random()}`, fenced: false, ...req }),
  };
}

/** setUp over an ObservedLock around redis-owned, fully fencing unless `shape` says otherwise. */
async function observed(shape = { fencing: true, tokens: true }, logger?: Logger): Promise<Awaited<ReturnType<typeof setUp>> & { lock: ObservedLock }> {
  let lock: ObservedLock | undefined;
  const set = await setUp({ lock: (r) => (lock = new ObservedLock(new OwnedLock(r), shape)), ...(logger && { logger }) });
  return { ...set, lock: lock! };
}

describe('the guarded deduction, its write committed', () => {
  it('released as usual: one unit sold, no warning, the lock free', async () => {
    const { lockRedis, stock, deduct } = await setUp();
    expect(await deduct({ requestId: 'plain' })).toEqual({ outcome: 'deducted' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ plain: 1 });
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });

  it('its lease gone before the release: still one unit sold, with the warning lock_expired_before_release', async () => {
    const { lockRedis, stock, deduct } = await setUp();
    stock.afterWrite = async () => void (await lockRedis.del(stringLockKey(STOCK_LOCK_RESOURCE)));
    expect(await deduct({ requestId: 'expired' })).toEqual({ outcome: 'deducted', warning: 'lock_expired_before_release' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ expired: 1 });
  });

  it("the lock's Redis unreachable before the release: still one unit sold, with the warning lock_release_failed", async () => {
    const { lockRedis, stock, deduct } = await setUp();
    stock.afterWrite = async () => lockRedis.disconnect();
    expect(await deduct({ requestId: 'unreachable' })).toEqual({ outcome: 'deducted', warning: 'lock_release_failed' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ unreachable: 1 });
  });

  it('sold out: nothing written, nothing warned', async () => {
    const { stock, deduct } = await setUp();
    await stock.reset(0);
    expect(await deduct({ requestId: 'none-left' })).toEqual({ outcome: 'sold_out' });
    expect(await stock.sales()).toEqual({});
  });
});

describe('the guarded deduction with fenced=1', () => {
  it("claims the stock with the grant's token, and refuses to sell under a token a later holder's claim outranks", async () => {
    const { lockRedis, stock, deduct } = await setUp();
    const fenceKey = redisStockFenceKey('redis');
    await stock.client.del(fenceKey);
    expect(await deduct({ fenced: true, requestId: 'fenced-1' })).toEqual({ outcome: 'deducted' });
    const claimed = BigInt((await stock.client.get(fenceKey)) ?? '0');
    expect(claimed).toBeGreaterThan(0n);
    // A later holder (elsewhere) claimed with a far larger token: this lock's next grant is stale.
    await stock.client.set(fenceKey, (claimed + 1_000_000n).toString());
    await expect(deduct({ fenced: true, requestId: 'fenced-2' })).rejects.toBeInstanceOf(FencedError);
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ 'fenced-1': 1 });
    // The refused deduction still gave the lock back.
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });
});

describe('the guarded deduction, what it hands its lock', () => {
  it("the request's tunables and owner; its signal and pause only when it has them", async () => {
    const { deduct, lock } = await observed();
    expect(await deduct({ owner: 'plain', requestId: 'plain' })).toEqual({ outcome: 'deducted' });
    const signal = new AbortController().signal;
    const at = () => undefined;
    expect(await deduct({ owner: 'with-both', requestId: 'with-both', signal, hooks: { at } })).toEqual({ outcome: 'deducted' });
    // Strict: a key present with the value undefined is a difference here.
    expect(lock.acquired).toStrictEqual([
      { ...LOCK, owner: 'plain' },
      { ...LOCK, owner: 'with-both', signal, pause: at },
    ]);
  });

  it('a request given up before it starts takes no lock and writes nothing', async () => {
    const { lockRedis, stock, deduct, lock } = await observed();
    const gone = new AbortController();
    const reason = new Error('client gone');
    gone.abort(reason);
    await expect(deduct({ requestId: 'gone', signal: gone.signal })).rejects.toBe(reason);
    expect(lock.acquired).toEqual([]);
    expect(await stock.read()).toBe(5);
    expect(await stock.sales()).toEqual({});
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });

  it('a request given up once it holds the lock writes nothing, and gives the lock back', async () => {
    const { lockRedis, stock, deduct, lock } = await observed();
    const gone = new AbortController();
    const reason = new Error('client gone');
    await expect(deduct({ requestId: 'gone', signal: gone.signal, hooks: { afterAcquire: () => gone.abort(reason) } })).rejects.toBe(reason);
    expect(lock.acquired).toHaveLength(1);
    expect(await stock.read()).toBe(5);
    expect(await stock.sales()).toEqual({});
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });

  it('a lease lost during the work refuses the write (LockLostError), and the lock is given back', async () => {
    const { lockRedis, stock, deduct, lock } = await observed();
    await expect(deduct({ requestId: 'lost', hooks: { afterAcquire: () => lock.lose() } })).rejects.toBeInstanceOf(LockLostError);
    expect(await stock.read()).toBe(5);
    expect(await stock.sales()).toEqual({});
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });

  it('calls the pause points where they stand: after the grant, before the write, and in the lock’s release', async () => {
    const { stock, deduct } = await setUp();
    const seen: string[] = [];
    stock.afterWrite = async () => void seen.push('written');
    const hooks = {
      afterAcquire: () => void seen.push('after-acquire'),
      beforeWrite: () => void seen.push('before-write'),
      at: (p: string) => void seen.push(`lock: ${p}`),
    };
    expect(await deduct({ requestId: 'paused', hooks })).toEqual({ outcome: 'deducted' });
    expect(seen).toEqual(['after-acquire', 'before-write', 'written', 'lock: before-del']);
    // A request that names only the lock's own pause point: the strategy's two are optional.
    seen.length = 0;
    expect(await deduct({ requestId: 'lock-only', hooks: { at: hooks.at } })).toEqual({ outcome: 'deducted' });
    expect(seen).toEqual(['written', 'lock: before-del']);
    expect(await stock.sales()).toEqual({ paused: 1, 'lock-only': 1 });
  });
});

describe('the hold record (the answer’s Server-Timing)', () => {
  /** Which of the record's times are set, and its token, at one step. */
  const stage = (r: HoldRecord) => ({
    granted: r.grantedAt !== undefined,
    writeStarted: r.writeStartedAt !== undefined,
    writeEnded: r.writeEndedAt !== undefined,
    released: r.releasedAt !== undefined,
    token: r.token,
  });

  it('is filled step by step: the grant and its token, the write’s start and end, the end of the hold before the release', async () => {
    const { stock, deduct, lock } = await observed();
    const hold = new HoldRecord();
    const seen: Record<string, ReturnType<typeof stage>> = {};
    stock.afterWrite = async () => void (seen.written = stage(hold));
    const hooks = {
      afterAcquire: () => void (seen.afterAcquire = stage(hold)),
      beforeWrite: () => void (seen.beforeWrite = stage(hold)),
      at: () => void (seen.release = stage(hold)),
    };
    expect(await deduct({ requestId: 'timed', hold, hooks })).toEqual({ outcome: 'deducted' });
    // One token read, the one the record holds.
    expect(lock.tokensRead).toHaveLength(1);
    const token = lock.tokensRead[0];
    expect(seen).toEqual({
      afterAcquire: { granted: true, writeStarted: false, writeEnded: false, released: false, token },
      beforeWrite: { granted: true, writeStarted: false, writeEnded: false, released: false, token },
      written: { granted: true, writeStarted: true, writeEnded: false, released: false, token },
      release: { granted: true, writeStarted: true, writeEnded: true, released: true, token },
    });
    // One monotonic clock, read in that order.
    const times = [hold.startedAt, hold.grantedAt, hold.writeStartedAt, hold.writeEndedAt, hold.releasedAt] as number[];
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('sold out: the grant and the hold noted, no write', async () => {
    const { stock, deduct } = await observed();
    await stock.reset(0);
    const hold = new HoldRecord();
    expect(await deduct({ requestId: 'none-left', hold })).toEqual({ outcome: 'sold_out' });
    expect(stage(hold)).toEqual({ granted: true, writeStarted: false, writeEnded: false, released: true, token: expect.any(BigInt) });
  });

  it('no token noted for a lock that names no token source, and none read', async () => {
    const { deduct, lock } = await observed({ fencing: false, tokens: true });
    const hold = new HoldRecord();
    expect(await deduct({ requestId: 'untokened', hold })).toEqual({ outcome: 'deducted' });
    expect(hold.token).toBeUndefined();
    expect(hold.grantedAt).toBeTypeOf('number');
    expect(lock.tokensRead).toEqual([]);
  });
});

describe('redis-fair’s answer: its place in line', () => {
  it('carries the ticket drawn and the grant’s token, in the order the deductions came', async () => {
    const { deduct } = await setUp({
      lock: (r, s) => new FairLock(r, new ReleaseNotifier(s)),
      // As src/strategies/redisson.ts declares it.
      answer: async (held) => ({ ticket: { queued: held.extras.ticket, granted: Number(await held.fencingToken?.()) } }),
    });
    const first = new HoldRecord();
    const a = await deduct({ requestId: 'first', hold: first });
    expect(a).toEqual({ outcome: 'deducted', ticket: { queued: 1, granted: Number(first.token) } });
    const second = new HoldRecord();
    expect(await deduct({ requestId: 'second', hold: second })).toEqual({ outcome: 'deducted', ticket: { queued: 2, granted: a.ticket!.granted + 1 } });
    expect(second.token).toBe(first.token! + 1n);
  });
});

describe('what a failed release logs', () => {
  it('a release that failed is a warning with its error; one that found its lease gone is only the answer’s warning', async () => {
    const { logger, lines } = capturedLogger();
    const { stock, deduct, lock } = await observed(undefined, logger);
    lock.failRelease = new Error('refused by the test');
    expect(await deduct({ requestId: 'refused' })).toEqual({ outcome: 'deducted', warning: 'lock_release_failed' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'lock release failed', err: { type: 'Error', message: 'refused by the test' } });

    lines.length = 0;
    lock.failRelease = new LockNotHeldError(STOCK_LOCK_RESOURCE);
    expect(await deduct({ requestId: 'expired' })).toEqual({ outcome: 'deducted', warning: 'lock_expired_before_release' });
    expect(lines).toEqual([]);
    expect(await stock.sales()).toEqual({ refused: 1, expired: 1 });
  });
});

describe('fenced=1 and the grant’s token', () => {
  const refusal = `lock for ${STOCK_LOCK_RESOURCE} issues no fencing token`;

  // The route accepts fenced=1 only where the strategy's lock issues tokens: a direct call that
  // asks anyway is refused before anything is read or written, whichever half the lock lacks.
  for (const shape of [
    { fencing: false, tokens: false },
    { fencing: true, tokens: false },
    { fencing: false, tokens: true },
  ]) {
    it(`is refused on a lock with ${shape.fencing ? '' : 'no '}token source and ${shape.tokens ? '' : 'no '}tokens on its leases: nothing sold, the lock given back`, async () => {
      const { lockRedis, stock, deduct, lock } = await observed(shape);
      const err = await deduct({ fenced: true, requestId: 'unfenceable' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(TypeError);
      expect((err as Error).message).toBe(refusal);
      expect(await stock.read()).toBe(5);
      expect(await stock.sales()).toEqual({});
      expect(await stock.client.exists(redisStockFenceKey('redis'))).toBe(0);
      expect(lock.tokensRead).toEqual([]);
      expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
    });
  }

  it('reads the token once (the record’s and the fence’s), and claims the stock with it', async () => {
    const { stock, deduct, lock } = await observed();
    const hold = new HoldRecord();
    expect(await deduct({ fenced: true, requestId: 'fenced', hold })).toEqual({ outcome: 'deducted' });
    expect(lock.tokensRead).toHaveLength(1);
    expect(hold.token).toBe(lock.tokensRead[0]);
    expect(await stock.client.get(redisStockFenceKey('redis'))).toBe(String(lock.tokensRead[0]));
  });

  it('without fenced=1 the stock is never claimed, though the lock issues tokens', async () => {
    const { stock, deduct } = await observed();
    expect(await deduct({ requestId: 'unfenced' })).toEqual({ outcome: 'deducted' });
    expect(await stock.client.exists(redisStockFenceKey('redis'))).toBe(0);
  });
});
