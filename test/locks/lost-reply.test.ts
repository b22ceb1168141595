// A lost reply: the acquire reaches the server and is applied, but its answer never arrives (a
// proxy drops it, then the connection is cut). The request fails with a 503, and the lock it
// took without knowing must not stay behind: ZooKeeper finds its node by the attempt id in the
// name (Curator's protected mode) once the session reconnects; Redis sends an owner-checked
// release. Without the clean-up each case below leaves the lock held (checked: they fail).
import { Redis } from 'ioredis';
import { createClient, type Client } from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import type { AcquireOptions, Lock } from '../../src/locks/lock.js';
import { stringLockKey, hashLockKey } from '../../src/locks/redis/keys.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { SetnxLock } from '../../src/locks/redis/string/setnx.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';
import { ZkEphemeralLock } from '../../src/locks/zk/ephemeral.js';
import { queueDir } from '../../src/locks/zk/queue.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { connectRedis } from '../../src/redis-client/connect.js';
import { pollUntil } from '../../src/time.js';
import { withServers } from '../support/servers.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const servers = withServers({ redis: 1, zookeeper: true });
const portOf = (address: string) => Number(/:(\d+)$/.exec(address)?.[1]);
const OPTS = { ttlMs: 30_000, waitMs: 10_000, retryMs: 10 };
const as = (owner: string): AcquireOptions => ({ ...OPTS, owner });
/** How long the clean-up may take once the connection is back: a reconnect and one or two round trips. */
const CLEANUP_BOUND_MS = 5_000;

describe('ZooKeeper: a create whose reply is lost', () => {
  const ROOT = '/stocklab-lost-reply';
  let proxy: TcpProxy;
  let session: ZkSession;
  let observer: Client;
  beforeAll(async () => {
    proxy = await TcpProxy.start(portOf(servers.current.zookeeper));
    session = await ZkSession.open({ connect: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 10_000, root: ROOT, logger: createLogger('silent') }, 10_000);
    observer = createClient(servers.current.zookeeper);
    observer.connect();
  });
  afterAll(async () => {
    await session?.close();
    observer?.close();
    await proxy?.close();
  });

  const children = (path: string) =>
    new Promise<string[]>((resolve) => observer.getChildren(path, (err, c) => resolve(err ? [] : c)));
  const exists = (path: string) => new Promise<boolean>((resolve) => observer.exists(path, (err, stat) => resolve(!err && !!stat)));

  /** Starts `acquire` with replies dropped, waits until the server has applied it, then cuts the connection. */
  async function loseReply(acquire: () => Promise<unknown>, applied: () => Promise<boolean>): Promise<unknown> {
    proxy.dropReplies();
    const outcome = acquire().then(() => 'acquired', (err: unknown) => err);
    expect(await pollUntil(applied, 10_000, 20)).toBe(true);
    proxy.cut();
    return outcome;
  }

  it('zk-watch: the queue node, found by its attempt id after the reconnect, is deleted', async () => {
    const lock = new ZkWatchLock(session);
    const dir = queueDir(session, 'lost-reply-queue');
    await (await lock.acquire('lost-reply-queue', as('warm-up'))).release(); // the queue's parent exists
    const sessionId = session.credentials.id.toString('hex');
    const outcome = await loseReply(() => lock.acquire('lost-reply-queue', as('A')), async () => (await children(dir)).length === 1);
    expect(outcome).toBeInstanceOf(DependencyDownError);
    expect(await pollUntil(async () => (await children(dir)).length === 0, CLEANUP_BOUND_MS, 50)).toBe(true);
    expect(session.credentials.id.toString('hex')).toBe(sessionId); // the same session: its nodes would have lived on
    await (await lock.acquire('lost-reply-queue', as('B'))).release();
  });

  it('zk-ephemeral: the node, recognised by its owner token, is deleted', async () => {
    const lock = new ZkEphemeralLock(session);
    const path = `${ROOT}/ephemeral-${encodeURIComponent('lost-reply-node')}`;
    const outcome = await loseReply(() => lock.acquire('lost-reply-node', as('A')), () => exists(path));
    expect(outcome).toBeInstanceOf(DependencyDownError);
    expect(await pollUntil(async () => !(await exists(path)), CLEANUP_BOUND_MS, 50)).toBe(true);
  });
});

describe('ZooKeeper: a connection that stays open and answers nothing more', () => {
  // Every reply lost, for good, on a socket that stays open: the client library would wait on it
  // forever, believing itself connected (ZooKeeper 3.8 was seen leaving such a socket behind when a
  // second client took the session over and closed it).
  it('is given up on: its holders learn they lost the lock, a new session takes over, and the lock is free again', async () => {
    const SESSION_MS = 3_000;
    const proxy = await TcpProxy.start(portOf(servers.current.zookeeper));
    const session = await ZkSession.open({ connect: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: SESSION_MS, root: '/stocklab-silent', logger: createLogger('silent') }, 10_000);
    try {
      const lock = new ZkEphemeralLock(session);
      const lease = await lock.acquire('silent', as('A'));
      const { id } = session.credentials;
      const silencedAt = Date.now();
      proxy.silenceOpenConnections();
      expect(await pollUntil(() => lease.lost.aborted, 3 * SESSION_MS, 10)).toBe(true);
      const lostAfterMs = Date.now() - silencedAt;
      expect(await pollUntil(() => session.connected && !session.credentials.id.equals(id), 10_000, 10)).toBe(true);
      const replacedAfterMs = Date.now() - silencedAt;
      console.log(`[silent zk] holder told after ${lostAfterMs} ms, new session after ${replacedAfterMs} ms (session timeout ${SESSION_MS} ms; bound ${3 * SESSION_MS} ms)`);
      // Not before the Java client's read timeout (2/3 of the session), less one watchdog tick.
      expect(lostAfterMs).toBeGreaterThanOrEqual((2 * SESSION_MS) / 3 - SESSION_MS / 6);
      // The old session was closed, not left to the server (which still hears its pings): its node went with it.
      await (await lock.acquire('silent', { ...as('B'), waitMs: 5_000 })).release();
    } finally {
      await session.close();
      await proxy.close();
    }
  });
});

describe('Redis: an acquire whose reply is lost', () => {
  let proxy: TcpProxy;
  let client: Redis;
  let observer: Redis;
  beforeAll(async () => {
    proxy = await TcpProxy.start(portOf(servers.current.redis[0]!));
    client = connectRedis(`redis://127.0.0.1:${proxy.port}`, { commandTimeoutMs: 10_000 });
    await client.connect();
    observer = new Redis(servers.current.redis[0]!);
  });
  afterAll(async () => {
    client?.disconnect();
    observer?.disconnect();
    await proxy?.close();
  });

  it.each([
    ['redis-setnx (no expiry: it would block everyone for good)', 'setnx', (r: Redis) => new SetnxLock(r), stringLockKey],
    ['redis-owned', 'owned', (r: Redis) => new OwnedLock(r), stringLockKey],
    ['redis-watchdog', 'watchdog', (r: Redis) => new WatchdogLock(r), hashLockKey],
  ] as const)('%s: the lock is given back by an owner-checked release', async (_name, resource, make: (r: Redis) => Lock, keyOf) => {
    const lock = make(client);
    const key = keyOf(resource);
    proxy.dropReplies();
    const outcome = lock.acquire(resource, as('A')).then(() => 'acquired', (err: unknown) => err);
    expect(await pollUntil(async () => (await observer.exists(key)) === 1, 10_000, 20)).toBe(true);
    proxy.cut();
    expect(await outcome).toBeInstanceOf(DependencyDownError);
    expect(await pollUntil(async () => (await observer.exists(key)) === 0, CLEANUP_BOUND_MS, 50)).toBe(true);
  });
});
