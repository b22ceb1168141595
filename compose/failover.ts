// The compose fault scenario: the replicated topology's Redis master is killed; Sentinel promotes
// the replica and the service, which asks the Sentinels for the master, keeps selling through nginx.
import { race, type RaceResult } from '../src/load/race.js';
import type { StoreAddresses } from '../src/cluster/stores.js';
import { SENTINEL_MASTER_NAME } from '../src/cluster/layout.js';
import { pollUntil } from '../src/time.js';
import { compose, untilEveryInstanceGreen, type ComposeProject } from '../src/compose/compose.js';

/** The master's address as the first Sentinel reports it (asked inside its container). */
export async function sentinelMaster(p: ComposeProject): Promise<string> {
  const out = await compose(p, ['exec', '-T', 'sentinel1', 'redis-cli', '-p', '26379', 'sentinel', 'get-master-addr-by-name', SENTINEL_MASTER_NAME]);
  return out.trim().split('\n').join(':');
}

export interface FailoverResult {
  oldMaster: string;
  newMaster: string;
  /** From the kill until a Sentinel names another master. */
  promotedMs: number;
  /** From the kill until nginx's /health answers 200 again. */
  healthyMs: number;
  race: RaceResult;
}

export interface FailoverOptions {
  nginx: string;
  stores: StoreAddresses;
  /** A lock strategy on the main Redis (its stock in MySQL, read through the published port). */
  strategy: string;
  initial: number;
  requests: number;
  connections: number;
  boundMs: number;
  /** The checks' own parameters (waitMs, …), as a race takes them. */
  params?: Record<string, number>;
  /** The race's bound (60 s): a slower race is cut there, its unanswered requests counted. */
  maxSeconds?: number;
}

export async function redisFailover(p: ComposeProject, o: FailoverOptions): Promise<FailoverResult> {
  const oldMaster = await sentinelMaster(p);
  const t0 = Date.now();
  await compose(p, ['kill', 'redis']);
  let newMaster = oldMaster;
  const promoted = await pollUntil(async () => (newMaster = await sentinelMaster(p)) !== oldMaster, o.boundMs, 250);
  if (!promoted) throw new Error(`failover: Sentinel still names ${oldMaster} ${o.boundMs} ms after the kill`);
  const promotedMs = Date.now() - t0;
  // every instance's checks green, Redis included: /health answers 200 whenever MySQL is up
  await untilEveryInstanceGreen(o.nginx, o.boundMs);
  const healthyMs = Date.now() - t0;
  const r = await race({
    target: o.nginx,
    stores: o.stores,
    strategy: o.strategy,
    initial: o.initial,
    requests: o.requests,
    connections: o.connections,
    params: o.params,
    maxSeconds: o.maxSeconds ?? 60,
  });
  return { oldMaster, newMaster, promotedMs, healthyMs, race: r };
}
