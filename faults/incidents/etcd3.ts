// etcd3 (npm) #75: the package's lock is a put-if-absent of the name itself on a lease, not etcd's
// lock: etcd's Lock RPC (what `etcdctl lock` calls) queues keys under `NAME/`, so the two never
// see each other and both hold "the lock on NAME" at once. Built in order: etcd's lock taken
// first (through etcd's HTTP gateway, as no etcdctl is installed), then the package's.
import { randomUUID } from 'node:crypto';
import { openEtcd } from '../../src/locks/etcd/client.js';
import { EtcdMutexLock, mutexPrefix } from '../../src/locks/etcd/mutex.js';
import type { FaultContext } from '../scenario.js';
import { LAB, type Trial, type TrialSpec } from './incident.js';

/** How long etcd's Lock RPC is given before the lab takes it as waiting (excluded). */
const LOCK_RPC_WAIT_MS = 1_000;
const b64 = (s: string) => Buffer.from(s).toString('base64');

function etcdUrl(ctx: FaultContext): string {
  const url = ctx.cluster.info.etcd;
  if (!url) throw new Error('this cluster has no etcd');
  return url;
}

async function gateway<T>(ctx: FaultContext, route: string, body: unknown, timeoutMs = 5_000): Promise<T> {
  const res = await fetch(`${etcdUrl(ctx)}/v3/${route}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`etcd /v3/${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** etcd's own lock on `name` under a lease of its own: resolves with the lease, or undefined if it waited past the bound. */
async function etcdLock(ctx: FaultContext, name: string): Promise<{ lease: string; took: boolean }> {
  const { ID: lease } = await gateway<{ ID: string }>(ctx, 'lease/grant', { TTL: 30 });
  const took = await gateway(ctx, 'lock/lock', { name: b64(name), lease }, LOCK_RPC_WAIT_MS).then(
    () => true,
    (err: Error) => (err.name === 'TimeoutError' ? false : Promise.reject(err)),
  );
  return { lease, took };
}

const revoke = (ctx: FaultContext, lease: string) => gateway(ctx, 'lease/revoke', { ID: lease }).catch(() => undefined);

export const etcd3BesideLockRpc: TrialSpec = {
  pkg: 'etcd3',
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const client = openEtcd([etcdUrl(ctx)]);
    const name = `incident-75-${randomUUID()}`;
    const theirs = await etcdLock(ctx, name);
    try {
      const lock = client.lock(name).ttl(30);
      const took = await lock.acquire().then(
        () => true,
        () => false,
      );
      const keys = await client.getAll().prefix(name).keys();
      if (took) await lock.release().catch(() => undefined);
      return {
        reproduced: theirs.took && took,
        measured: {
          en: `etcd's Lock RPC held NAME; the package's lock on the same name ${took ? 'was granted too' : 'was refused'} (keys: ${keys.map((k) => k.replace(name, 'NAME')).join(', ')})`,
          zh: `etcd 的 Lock RPC 持有 NAME；同名的包锁${took ? '也拿到了' : '被拒绝'}（键：${keys.map((k) => k.replace(name, 'NAME')).join('、')}）`,
        },
        facts: { lockRpcHeld: theirs.took, packageGranted: took, keys: keys.length },
      };
    } finally {
      await revoke(ctx, theirs.lease);
      client.close();
    }
  },
};

/** The lab's etcd-lock keeps etcd's own layout (`<prefix>/<lease id>`): etcd's Lock RPC on that name waits behind it. */
export const labEtcdBesideLockRpc: TrialSpec = {
  pkg: `${LAB} etcd-lock`,
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const client = openEtcd([etcdUrl(ctx)]);
    const resource = `incident-75-${randomUUID()}`;
    const lease = await new EtcdMutexLock(client).acquire(resource, { owner: 'incident-75', ttlMs: 30_000, waitMs: 5_000, retryMs: 50 });
    const name = mutexPrefix(resource).replace(/\/$/, '');
    let theirs: { lease: string; took: boolean } | undefined;
    try {
      theirs = await etcdLock(ctx, name);
      return {
        reproduced: theirs.took,
        measured: {
          en: `stocklab's etcd-lock held the name; etcd's Lock RPC on it ${theirs.took ? 'was granted too' : `waited (still waiting after ${LOCK_RPC_WAIT_MS} ms)`}`,
          zh: `stocklab 的 etcd-lock 持有这个名字；etcd 的 Lock RPC ${theirs.took ? '也拿到了' : `在排队（${LOCK_RPC_WAIT_MS} ms 后仍在等）`}`,
        },
        facts: { lockRpcGranted: theirs.took },
      };
    } finally {
      await lease.release().catch(() => undefined);
      if (theirs) await revoke(ctx, theirs.lease);
      client.close();
    }
  },
};
