// RedLock on a private cluster (its masters and instances are stopped, killed and restarted), in
// both forms (the course's, one hold per request, and `redlock+line`): exact and live through nginx with every master up and with a minority down, live again right
// after a holder crash and restarts (the order in which the suite's run collapsed), a fast 503
// without a quorum, and live again once the stopped masters come back empty.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { race, resetStock, type RaceResult } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { redlockKey } from '../../src/locks/redis/keys.js';
import { redlockReleaseChannel } from '../../src/locks/redis/redlock/release-hints.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { expectDocumented, expectExactRace } from '../support/race-checks.js';
import { check, checkMany, untilKeyExists } from '../support/redis-helpers.js';

const own = withOwnCluster({ instances: 3 });

/**
 * Liveness bound for every race here: at most 2 % of the requests refused (503) within the
 * default 10 s waitMs. Measured on 2 busy shared cores: none refused, p99 0.3–2.6 s. The fixed
 * 20 ms retry it replaces refused 1.3–16 % at 100 connections with every master up, 7–31 % with
 * 2 of 5 stopped.
 */
const LIVE_BOUND = 0.02;

/** The course's redlock (one hold per request) and its `+line` row (one contender per instance, holds passed in memory). */
type Form = 'redlock' | 'redlock+line';

/** A race through nginx at the service's default lock parameters (waitMs 10 s). */
async function redlockRace(strategy: Form, label: string, initial: number, requests: number, connections: number): Promise<RaceResult> {
  const { info } = own.current;
  const r = await race({ target: info.nginx, stores: info, strategy, initial, requests, connections, maxSeconds: 90 });
  expectExactRace(r, label, LIVE_BOUND);
  return r;
}

/** Every master running except those in `down`, which are stopped (SIGTERM) or killed (SIGKILL). */
async function mastersDown(down: number[], how: 'stop' | 'kill' = 'stop'): Promise<void> {
  const { redlock } = own.current.servers;
  for (const [i, server] of redlock.entries()) {
    if (!down.includes(i)) {
      if (server.pid === undefined) await server.start();
    } else if (server.pid !== undefined) {
      await (how === 'kill' ? server.kill() : server.stop());
    }
  }
}

async function instancesUp(): Promise<void> {
  for (const instance of own.current.servers.instances) if (instance.pid === undefined) await instance.start();
}

afterAll(async () => {
  await mastersDown([]);
});

describe('every master up', () => {
  beforeAll(async () => {
    await mastersDown([]);
    await instancesUp();
  });

  // The lined row races at size; the course's row, whose every request asks the masters, small.
  it('redlock+line: 1100 requests for 1000 units, 100 connections: exact, ≤ 2 % refused', async () => {
    await redlockRace('redlock+line', 'redlock+line, 5 of 5 up, 100 connections', 1000, 1100, 100);
  });

  it('redlock: 110 requests for 100 units, 100 connections: exact, ≤ 2 % refused', async () => {
    await redlockRace('redlock', 'redlock, 5 of 5 up, 100 connections', 100, 110, 100);
  });

  it('redlock asks the masters for every sale; redlock+line passes its hold in memory, and asks them far less often than it sells', async () => {
    const { info } = own.current;
    // 5 at a time on one instance, each holding 30 ms: while one holds, the other four are in line.
    const SALES = 36;
    const key = redlockKey(STOCK_LOCK_RESOURCE);
    const scripts: Record<Form, number> = { redlock: 0, 'redlock+line': 0 };
    for (const form of ['redlock', 'redlock+line'] as const) {
      await resetStock(info.nginx, SALES);
      const client = new Redis(info.redlock[4]!);
      const monitor = await client.monitor();
      // The lock's scripts sent to this master (acquire, hand-off, release), not the commands they run inside.
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source !== 'lua' && /^eval(sha)?$/i.test(args[0] ?? '') && args.includes(key)) scripts[form]++;
      });
      const answers = await checkMany(info.instances[0]!, form, { workMs: 30 }, SALES, 5);
      monitor.disconnect();
      client.disconnect();
      expect(
        answers.filter((a) => a.status === 200),
        form,
      ).toHaveLength(SALES);
    }
    console.log(
      `[redlock] ${SALES} sales, 5 at a time on one instance: lock scripts on one master, redlock ${scripts.redlock}, redlock+line ${scripts['redlock+line']}`,
    );
    // Every grant of the course's redlock (an acquire, or a hand-off between two requests) is a script on every master.
    expect(scripts.redlock).toBeGreaterThanOrEqual(SALES);
    expect(scripts['redlock+line']).toBeLessThan(SALES / 2);
  });

  it('work that outlasts the validity is refused before its write (503 lock_lost), and so is an acquire slower than its lease', async () => {
    const { info } = own.current;
    await resetStock(info.nginx, 10);
    const late = await checkMany(info.instances[0]!, 'redlock', { workMs: 300, ttlMs: 100 }, 3, 3);
    expectDocumented(late);
    expect(late.map((a) => [a.status, a.error])).toEqual(Array(3).fill([503, 'lock_lost']));
    const t0 = Date.now();
    expect(await check(info.instances[0]!, 'redlock', { ttlMs: 1 })).toEqual({ status: 503, error: 'lock_lost', warning: undefined });
    expect(Date.now() - t0).toBeLessThan(2_000); // refused at once, not after retrying until waitMs
    expect(await unitsLeft(info, 'mysql')).toBe(10);
  });
});

describe('2 of 5 masters stopped', () => {
  beforeAll(async () => {
    await mastersDown([0, 1]);
    await instancesUp();
  });

  it('redlock: 120 requests for 100 units, 30 connections: exact, ≤ 2 % refused', async () => {
    await redlockRace('redlock', 'redlock, 3 of 5 up, 30 connections', 100, 120, 30);
  });

  it('redlock+line: 1100 requests for 1000 units, 100 connections: exact, ≤ 2 % refused', async () => {
    await redlockRace('redlock+line', 'redlock+line, 3 of 5 up, 100 connections', 1000, 1100, 100);
  });
});

describe('right after a holder crash and restarts (the order the suite ran in)', () => {
  let master: Redis;
  beforeAll(async () => {
    await mastersDown([]);
    await instancesUp();
    master = new Redis(own.current.info.redlock[4]!); // never stopped in this file
  });
  afterAll(() => master.disconnect());

  it('a holder killed mid-work: its lease expires after ttl and the next request gets the lock', async () => {
    const { info, servers } = own.current;
    const ttlMs = 500;
    await resetStock(info.instances[1]!, 10);
    const pending = check(info.instances[0]!, 'redlock', { workMs: 5_000, ttlMs }).catch(() => undefined);
    await untilKeyExists(master, redlockKey(STOCK_LOCK_RESOURCE)); // instance 0 holds the lock now
    await servers.instances[0]!.kill();
    await pending;
    const t0 = Date.now();
    const next = await check(info.instances[1]!, 'redlock', { waitMs: 5_000, ttlMs });
    expectDocumented([next]);
    expect(next).toEqual({ status: 200, error: undefined, warning: undefined });
    expect(Date.now() - t0).toBeLessThan(ttlMs + 1_000);
  });

  it('then, the holder’s instance just restarted and 2 masters killed: 120 for 100 over 30 connections', async () => {
    await instancesUp(); // cold: its first requests run unoptimized code
    await mastersDown([0, 1], 'kill');
    await redlockRace('redlock', 'redlock, after a crash, 3 of 5 up, 30 connections', 100, 120, 30);
  });
});

describe('no quorum (3 of 5 stopped)', () => {
  beforeAll(async () => {
    await mastersDown([0, 1, 2]);
    await instancesUp();
  });

  it('answers 503 redlock_unavailable at once', async () => {
    const { info } = own.current;
    await resetStock(info.nginx, 10);
    const t0 = Date.now();
    const answers = await checkMany(info.nginx, 'redlock', { waitMs: 5_000 }, 6, 3);
    expectDocumented(answers);
    expect(answers.map((a) => [a.status, a.error])).toEqual(Array(6).fill([503, 'redlock_unavailable']));
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});

describe('the stopped masters back, empty (no persistence)', () => {
  beforeAll(async () => {
    await mastersDown([]);
    await instancesUp();
  });

  it('every instance listens for release hints on them again, and the lock is live', async () => {
    const { info } = own.current;
    const channel = redlockReleaseChannel(STOCK_LOCK_RESOURCE);
    // Each instance's subscriber reconnects on its own (backoff ≤ 1 s) and subscribes again.
    for (const url of info.redlock.slice(0, 3)) {
      const restarted = new Redis(url);
      try {
        let subscribers = 0;
        await pollUntil(
          async () => {
            [, subscribers] = (await restarted.pubsub('NUMSUB', channel)) as [string, number];
            return subscribers >= info.instances.length;
          },
          10_000,
          100,
        );
        expect(subscribers, `subscribers of ${channel} on ${url}`).toBe(info.instances.length);
      } finally {
        restarted.disconnect();
      }
    }
    await redlockRace('redlock+line', 'redlock+line, masters back, 30 connections', 100, 120, 30);
  });
});
