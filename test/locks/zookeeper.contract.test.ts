// Every ZooKeeper recipe under the lock contract, against a ZooKeeper of its own. A holder loses
// its lock when its session ends, which a second client makes happen.
import type { Lock } from '../../src/locks/lock.js';
import { ZkEphemeralLock } from '../../src/locks/zk/ephemeral.js';
import { MultiLock } from '../../src/locks/zk/multi.js';
import { ZkReadWriteLock } from '../../src/locks/zk/read-write.js';
import { ZkReentrantLock } from '../../src/locks/zk/reentrant.js';
import { ZkSemaphoreMutex } from '../../src/locks/zk/semaphore.js';
import { ZkSequentialLock } from '../../src/locks/zk/sequential.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { ZkHerdLock } from '../../src/locks/zk/herd.js';
import { createLogger } from '../../src/logger.js';
import { pollUntil } from '../../src/time.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';
import { expireSession } from '../support/zookeeper.js';

const servers = withServers({ zookeeper: true });

function recipe(name: string, reentrant: boolean, make: (session: ZkSession) => Lock): void {
  lockContract(name, { reentrant, lateRelease: 'refuses', lost: 'fires' }, async () => {
    const connect = servers.current.zookeeper;
    const session = await ZkSession.open({ connect, sessionTimeoutMs: 4_000, root: '/stocklab-contract/locks', logger: createLogger('silent') }, 10_000);
    return {
      lock: make(session),
      // Every lock node of the resource goes, as with a reset (POST /stock/reset).
      takeAway: () => session.clearEphemeralNodes(),
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
