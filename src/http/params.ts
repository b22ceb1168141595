// Validation of what a client sends. Every rejection names the parameter at fault.
import { z } from 'zod';
import type { RequestLimits } from '../config.js';
import type { Strategy } from '../strategies/strategy.js';
import type { Catalog } from '../strategies/catalog.js';
import type { StoreKind } from '../stock/store.js';
import type { DeductRequest } from '../strategies/strategy.js';

export class BadRequestError extends Error {
  constructor(
    readonly param: string,
    message: string,
    readonly valid?: readonly string[],
  ) {
    super(message);
  }
}

type Query = Record<string, unknown>;

function intParam(query: Query, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const parsed = z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .safeParse(raw);
  if (!parsed.success) throw new BadRequestError(name, `${name} must be a whole number from ${min} to ${max}`);
  return parsed.data;
}

function oneString(query: Query, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') throw new BadRequestError(name, `${name} must be given once, as text`);
  return raw;
}

export interface CheckParams {
  strategy: Strategy;
  /** Everything but the owner, which the route assigns per request. */
  request: Omit<DeductRequest, 'owner'>;
}

export function parseCheckParams(query: Query, catalog: Catalog, defaultStrategy: string, limits: RequestLimits): CheckParams {
  const name = oneString(query, 'strategy') ?? defaultStrategy;
  const strategy = catalog.get(name);
  if (!strategy) throw new BadRequestError('strategy', `unknown strategy "${name}"`, catalog.names);

  const storeName = oneString(query, 'store') ?? strategy.stores[0];
  const store = strategy.stores.find((s) => s === storeName);
  if (!store) throw new BadRequestError('store', `strategy ${strategy.name} works on ${strategy.stores.join(' or ')}, not "${storeName}"`, strategy.stores);

  return {
    strategy,
    request: {
      workMs: intParam(query, 'workMs', 0, limits.workMsMax, 0),
      store: store satisfies StoreKind,
      lock: {
        ttlMs: intParam(query, 'ttlMs', 1, limits.ttlMsMax, limits.ttlMsDefault),
        waitMs: intParam(query, 'waitMs', 0, limits.waitMsMax, limits.waitMsDefault),
        retryMs: intParam(query, 'retryMs', 1, limits.retryMsMax, limits.retryMsDefault),
      },
    },
  };
}

const MAX_RESET_COUNT = 10_000_000;
const resetBody = z.object({ count: z.number().int().min(0).max(MAX_RESET_COUNT) });

export function parseResetBody(body: unknown): number {
  const parsed = resetBody.safeParse(body ?? {});
  if (!parsed.success) {
    throw new BadRequestError('count', `body must be JSON {"count": N} with N a whole number from 0 to ${MAX_RESET_COUNT}`);
  }
  return parsed.data.count;
}
