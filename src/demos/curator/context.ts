// What every Curator route shares: the group's ZooKeeper session, the service's Redis (for the
// holders gauges), the request limits, and how a request's parameters and client are read.
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import type { RequestLimits } from '../../config.js';
import { ClientGoneError } from '../../http/in-flight.js';
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

/** Aborted when the client leaves before its answer: a hold's work stops, a late grant is given back. */
export function clientSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
}
