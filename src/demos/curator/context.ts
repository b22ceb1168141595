// What every Curator route shares: the group's ZooKeeper session, the service's Redis (for the
// holders gauges), the request limits, and how a request's parameters and client are read.
import type { Redis } from 'ioredis';
import type { RequestLimits } from '../../config.js';
import { RETRY_MS_MIN, intParam, type Query } from '../../http/params.js';
import type { ZkSession } from '../../locks/zk/session.js';

export interface RecipeContext {
  session: ZkSession;
  redis: Redis;
  limits: RequestLimits;
  instance: string;
}

/** waitMs, as every wait of the lab takes it: the service's default when absent. */
export function waitMsParam(query: Query, limits: RequestLimits): number {
  return intParam(query, 'waitMs', 0, limits.waitMsMax, limits.waitMsDefault);
}

/** The pause between optimistic attempts (full jitter up to it), as GET /check/lock takes it. */
export function retryMsParam(query: Query, limits: RequestLimits): number {
  return intParam(query, 'retryMs', RETRY_MS_MIN, limits.retryMsMax, limits.retryMsDefault);
}
