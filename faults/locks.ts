// What the lab knows about each lock strategy, all of it read from the catalog (GET /strategies,
// once per cluster, before its first scenario): which locks it measures, how a dead or frozen holder's claim ends,
// whether the lock issues fencing tokens (the service's contract: fenced=1 elsewhere answers 400),
// how long its lease lasts, which store its cases deduct from. A lock added to the catalog with its
// `expected.faults` gets its cases without an edit here.
import type { RunningCluster } from '../src/cluster/cluster.js';
import type { StoreKind } from '../src/stock/store.js';
import type { FaultOutcomes } from '../src/strategies/strategy.js';
import { fetchDeclared, type Declared } from './catalog-check.js';

/** The lab's ZooKeeper session (ZK_SESSION_TIMEOUT_MS), short so the session scenarios stay short (min 1000 in the service). */
export const ZK_SESSION_MS = 2_000;

/** The lab instances' Redis command timeout (REDIS_COMMAND_TIMEOUT_MS, min 100 in the service): how long a reply may be late before it counts as lost. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** How a holder's claim ends when the holder stops answering. */
export type Claim =
  /** never: no expiry (redis-setnx) */
  | 'forever'
  /** after ttlMs, a lease the store or server expires */
  | 'ttl'
  /** with the holder's ZooKeeper session */
  | 'session'
  /** with the holder's database session (PostgreSQL's advisory locks): at once when its process dies, never while it is only frozen */
  | 'connection';

/** The catalog's holderCrash, in the lab's terms. */
const CLAIM_OF_CRASH: Readonly<Record<FaultOutcomes['holderCrash'], Claim>> = {
  never: 'forever',
  'after ttlMs': 'ttl',
  'after the session timeout': 'session',
  'at once, with its database session': 'connection',
};

const isCrashOutcome = (s: string): s is FaultOutcomes['holderCrash'] => Object.hasOwn(CLAIM_OF_CRASH, s);

/** One lock strategy as the lab's cases need it. */
export interface LockFacts {
  name: string;
  claim: Claim;
  /** It issues fencing tokens (`fencing` in GET /strategies): fenced=1 applies. */
  fenceable: boolean;
  /** The store its cases deduct from: its first (MySQL, or PostgreSQL for PostgreSQL's own advisory locks). */
  homeStore: StoreKind;
  /** Its leases are whole seconds, ttlMs rounded up, at least 1 s (etcd's). */
  wholeSecondLeases: boolean;
  /** A subject of lost-reply: a lock on the one main Redis (see FaultLabFacts in src/strategies/strategy.ts). */
  lostReplyCase: boolean;
}

export interface LabLocks {
  /** Every lock strategy of the lab (those the catalog declares `expected.faults` for), in the catalog's order. */
  all: readonly string[];
  /** Those whose claim ends with a ZooKeeper session. */
  zk: readonly string[];
  /** Locks on the one main Redis (not RedLock): the lost-reply clean-up's subjects. */
  singleRedis: readonly string[];
  facts(strategy: string): LockFacts;
  claimOf(strategy: string): Claim;
  fenceable(strategy: string): boolean;
  homeStoreOf(strategy: string): StoreKind;
  /** How long a lease asked for with `ttlMs` lasts on the server: etcd's are whole seconds. */
  leaseMsOf(strategy: string, ttlMs: number): number;
}

function factsOf(d: Declared, crash: string): LockFacts {
  if (!isCrashOutcome(crash)) throw new Error(`GET /strategies: ${d.name} declares holderCrash '${crash}', which the fault lab has no case for`);
  return {
    name: d.name,
    claim: CLAIM_OF_CRASH[crash],
    fenceable: d.fencing !== undefined,
    homeStore: d.stores?.[0] ?? 'mysql',
    wholeSecondLeases: d.faultLab?.wholeSecondLeases === true,
    lostReplyCase: d.faultLab?.lostReplyCase === true,
  };
}

/** The lab's lock facts from GET /strategies' entries (catalog-check.ts's fetchDeclared). */
export function labLocks(declared: ReadonlyMap<string, Declared>): LabLocks {
  const byName = new Map<string, LockFacts>();
  for (const d of declared.values()) {
    const crash = d.expected.faults?.holderCrash;
    if (crash !== undefined) byName.set(d.name, factsOf(d, crash));
  }
  const facts = (strategy: string): LockFacts => {
    const f = byName.get(strategy);
    if (!f) throw new Error(`GET /strategies declares no fault outcomes for ${strategy}`);
    return f;
  };
  const all = [...byName.values()];
  return {
    all: all.map((f) => f.name),
    zk: all.filter((f) => f.claim === 'session').map((f) => f.name),
    singleRedis: all.filter((f) => f.lostReplyCase).map((f) => f.name),
    facts,
    claimOf: (s) => facts(s).claim,
    fenceable: (s) => facts(s).fenceable,
    homeStoreOf: (s) => facts(s).homeStore,
    leaseMsOf: (s, ttlMs) => (facts(s).wholeSecondLeases ? Math.max(1, Math.ceil(ttlMs / 1000)) * 1000 : ttlMs),
  };
}

/** Each cluster's GET /strategies, asked once: every scenario on it builds its cases from the same answer. */
const declaredByCluster = new WeakMap<RunningCluster, Promise<Map<string, Declared>>>();

/** The catalog as `cluster`'s first instance serves it (GET /strategies), read once per cluster. */
export function declaredOf(cluster: RunningCluster): Promise<Map<string, Declared>> {
  let declared = declaredByCluster.get(cluster);
  if (!declared) {
    declared = fetchDeclared(cluster.info.instances[0] ?? cluster.info.nginx);
    // a failed read is not kept: the next scenario asks again
    declared.catch(() => declaredByCluster.delete(cluster));
    declaredByCluster.set(cluster, declared);
  }
  return declared;
}

/** The lab's lock facts for the strategies `cluster` serves. */
export async function labLocksOf(cluster: RunningCluster): Promise<LabLocks> {
  return labLocks(await declaredOf(cluster));
}
