// Every ZooKeeper recipe under the lock contract, against a ZooKeeper of its own. A holder loses
// its lock when its session ends, which a second client makes happen. Then the process line the
// strategies put in front of zk-watch: each session stands for one instance.
import { describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../../src/locks/errors.js';
import { MAX_HANDOFF_STREAK } from '../../src/locks/handoff.js';
import { ProcessLine } from '../../src/locks/process-line.js';
import { queueDir } from '../../src/locks/zk/queue.js';
import { withLock } from '../../src/locks/scope.js';
import { sleep } from '../../src/time.js';
import type { Lock } from '../../src/locks/lock.js';
import { ZkEphemeralLock } from '../../src/locks/zk/ephemeral.js';
import { MultiLock } from '../../src/locks/zk/multi.js';
import { ZkReadWriteLock } from '../../src/locks/zk/read-write.js';
import { ZkReentrantLock } from '../../src/locks/zk/reentrant.js';
import { ZkSemaphoreMutex } from '../../src/locks/zk/semaphore.js';
import { ZkSequentialLock } from '../../src/locks/zk/sequential.js';
import { ZK_GRANTS_PER_NODE, ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { ZkHerdLock } from '../../src/locks/zk/herd.js';
import { createLogger } from '../../src/logger.js';
import { pollUntil } from '../../src/time.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';
import { expireSession } from '../../faults/zk-session.js';

const servers = withServers({ zookeeper: true });

const ROOT = '/stocklab-contract/locks';
const openSession = () => ZkSession.open({ connect: servers.current.zookeeper, sessionTimeoutMs: 4_000, root: ROOT, logger: createLogger('silent') }, 10_000);

/**
 * `lined`: behind a process line, where a hold taken away on the server still holds the line of its
 * own process (the cases that take it away run across two lines below).
 */
function recipe(name: string, reentrant: boolean, make: (session: ZkSession) => Lock, lined = false): void {
  lockContract(name, { reentrant, ...(!lined && { lateRelease: 'refuses' as const }), lost: 'fires' }, async () => {
    const connect = servers.current.zookeeper;
    const session = await openSession();
    return {
      lock: make(session),
      // Every lock node of the resource goes, as with a reset (POST /stock/reset).
      ...(!lined && { takeAway: () => session.clearEphemeralNodes() }),
      loseHold: async () => {
        const { id, password } = session.credentials;
        await expireSession(connect, id, password);
        // Closing a client that is still shaking hands trips the client library: let the new session settle first.
        if (!(await pollUntil(() => session.connected && !session.credentials.id.equals(id), 10_000))) throw new Error('no new session');
      },
      close: () => session.close(),
    };
  });
}

recipe('zk-ephemeral', false, (s) => new ZkEphemeralLock(s));
recipe('zk-sequential', false, (s) => new ZkSequentialLock(s));
recipe('zk-watch', false, (s) => new ZkWatchLock(s));
recipe('zk-herd', false, (s) => new ZkHerdLock(s));
recipe('zk-reentrant', true, (s) => new ZkReentrantLock(s));
// Curator's other locks (§3.7). The semaphore mutex is not reentrant, even for the same owner; the
// read-write lock's write lock and the multi-lock (over reentrant locks) are.
recipe('zk-semaphore-mutex', false, (s) => new ZkSemaphoreMutex(s));
recipe('zk-rw-write', true, (s) => new ZkReadWriteLock(s).writeLock);
recipe('zk-multi', true, (s) => new MultiLock(new ZkReentrantLock(s), (r) => [`${r}/second`]));
// The `+line` strategies' locks (zk-watch+line, zk-reentrant+line; zk-multi's in the service); the plain ones above are zk-watch's and zk-reentrant's.
recipe('zk-watch behind a process line', false, (s) => new ProcessLine(new ZkWatchLock(s), ZK_GRANTS_PER_NODE), true);
recipe('zk-reentrant behind a process line', true, (s) => new ZkReentrantLock(s, new ProcessLine(new ZkWatchLock(s), ZK_GRANTS_PER_NODE)), true);

describe('process line: zk-watch with one node per instance', () => {
  const opts = (owner: string, waitMs = 30_000) => ({ ttlMs: 30_000, waitMs, retryMs: 10, owner });
  /** Two instances: a session and a line each. */
  const instances = async (tokenRoom = ZK_GRANTS_PER_NODE) => {
    const sessions = await Promise.all([openSession(), openSession()]);
    return { sessions, lines: sessions.map((s) => new ProcessLine(new ZkWatchLock(s), tokenRoom)), close: () => Promise.all(sessions.map((s) => s.close())) };
  };

  it('excludes across instances and hands grants on inside each; every grant, passed or not, gets a larger token than the one before', async () => {
    const { lines, close } = await instances();
    try {
      const r = `line-${Date.now()}`;
      let inside = 0;
      let mostInside = 0;
      const tokens: bigint[] = [];
      await Promise.all(
        lines.flatMap((line, p) =>
          Array.from({ length: 30 }, (_, i) =>
            withLock(line, r, opts(`p${p}-${i}`), async (held) => {
              inside++;
              mostInside = Math.max(mostInside, inside);
              tokens.push(await held.fencingToken!());
              await sleep(1);
              inside--;
            }),
          ),
        ),
      );
      expect(mostInside).toBe(1);
      expect(tokens).toHaveLength(60);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]!, `grant ${i}`).toBeGreaterThan(tokens[i - 1]!);
      const [a, b] = lines.map((l) => l.stats);
      console.log(`[process-line] 60 grants over 2 instances: inner grants ${a!.innerGrants} + ${b!.innerGrants}, passes ${a!.passes} + ${b!.passes}`);
      expect(a!.passes + b!.passes).toBeGreaterThan(0);
      // No run serves more than the streak allows, so each instance went back to ZooKeeper's queue.
      for (const s of [a!, b!]) expect(s.innerGrants).toBeGreaterThanOrEqual(Math.ceil(30 / (MAX_HANDOFF_STREAK + 1)));
    } finally {
      await close();
    }
  });

  it("gives the lock back after the streak: another instance's waiter, queued on the server, comes before the rest of the first instance's line", async () => {
    const { sessions, lines, close } = await instances();
    const p1 = lines[0]!;
    const p2 = lines[1]!;
    try {
      const r = `streak-${Date.now()}`;
      const order: string[] = [];
      const hold = await p1.acquire(r, opts('p1-holder'));
      const firstLine = Array.from({ length: 20 }, (_, i) => withLock(p1, r, opts(`p1-${i}`), async () => void order.push('p1')));
      const other = withLock(p2, r, opts('p2'), async () => void order.push('p2'));
      // Sequenced: all 20 in line behind the holder, and the other instance's node queued on the server.
      expect(await pollUntilTrue(() => p1.waiting(r) === 20)).toBe(true);
      const dir = queueDir(sessions[0]!, r);
      expect(await pollUntilTrue(async () => (await sessions[0]!.getChildren(dir, Date.now() + 2_000)).length === 2)).toBe(true);
      await hold.release();
      await Promise.all([...firstLine, other]);
      // The holder's run serves MAX_HANDOFF_STREAK passes, then the node goes and p2's is first.
      expect(order.indexOf('p2')).toBe(MAX_HANDOFF_STREAK);
    } finally {
      await close();
    }
  });

  it('leaves room for its passes in the inner token order: a run ends when it has used the room', async () => {
    const { sessions, close } = await instances();
    try {
      const line = new ProcessLine(new ZkWatchLock(sessions[0]!), 2);
      const r = `room-${Date.now()}`;
      const tokens: bigint[] = [];
      await Promise.all(Array.from({ length: 6 }, (_, i) => withLock(line, r, opts(`o${i}`), async (held) => void tokens.push(await held.fencingToken!()))));
      expect(line.stats).toEqual({ innerGrants: 3, passes: 3 });
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]!).toBeGreaterThan(tokens[i - 1]!);
    } finally {
      await close();
    }
  });

  it('a request that times out or leaves while in line is never handed the lock, and the line goes on', async () => {
    const { lines, close } = await instances();
    const line = lines[0]!;
    try {
      const r = `leave-${Date.now()}`;
      const a = await line.acquire(r, opts('A'));
      const client = new AbortController();
      const gone = new Error('the client left');
      const left = line.acquire(r, { ...opts('B'), signal: client.signal }).then(
        () => 'granted',
        (err: unknown) => err,
      );
      const timedOut = line.acquire(r, opts('C', 200)).then(
        () => 'granted',
        (err: unknown) => err,
      );
      client.abort(gone);
      expect(await left).toBe(gone);
      expect(await timedOut).toBeInstanceOf(LockTimeoutError);
      expect(line.waiting(r)).toBe(0);
      await a.release();
      // The line is idle again: the next request asks ZooKeeper and gets it.
      await (await line.acquire(r, opts('D', 5_000))).release();
      expect(line.stats.passes).toBe(0);
    } finally {
      await close();
    }
  });
});

async function pollUntilTrue(check: () => boolean | Promise<boolean>): Promise<boolean> {
  return pollUntil(check, 10_000, 10);
}
