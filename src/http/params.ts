// Validation of what a client sends. Every rejection names the parameter at fault.
import { z } from 'zod';
import type { RequestLimits } from '../config.js';
import { LOCK_CLOCK_OFFSET_MAX_MS } from '../locks/lock-clock.js';
import { STEP_PAUSE_POINTS, type Strategy } from '../strategies/strategy.js';
import type { Catalog } from '../strategies/catalog.js';
import { LINE_SUFFIX, linedName } from '../strategies/lined.js';
import type { StoreKind } from '../stock/store.js';
import type { DeductRequest } from '../strategies/strategy.js';
import { acceptedLanguages, firstKnownLang, isLang, LANGS, type Lang } from '../lang.js';

export class BadRequestError extends Error {
  constructor(
    readonly param: string,
    message: string,
    readonly valid?: readonly string[],
  ) {
    super(message);
  }
}

export type Query = Record<string, unknown>;

export function intParam(query: Query, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const parsed = z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(min).max(max)).safeParse(raw);
  if (!parsed.success) throw new BadRequestError(name, `${name} must be a whole number from ${min} to ${max}`);
  return parsed.data;
}

export function oneString(query: Query, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') throw new BadRequestError(name, `${name} must be given once, as text`);
  return raw;
}

/** Where a request may stop its own process, for the fault lab (see http/fault-hooks.ts). */
export const LOCK_SCOPE_PAUSE_POINTS = ['after-acquire', 'before-write'] as const;
export const PAUSE_POINTS = [...LOCK_SCOPE_PAUSE_POINTS, ...STEP_PAUSE_POINTS] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

export interface CheckParams {
  strategy: Strategy;
  /** Everything but the owner, the request id and the hooks, which the route adds. */
  request: Omit<DeductRequest, 'owner' | 'requestId' | 'hooks'>;
  pause?: PausePoint;
  /** KB this request leaks on purpose (http/leak.ts), the soak's growth check's real leak; absent: none. */
  leakKb?: number;
}

export function flag(query: Query, name: string): boolean {
  const raw = oneString(query, name);
  if (raw === undefined || raw === '0') return false;
  if (raw === '1') return true;
  throw new BadRequestError(name, `${name} must be 0 or 1`);
}

/** Every parameter GET /check/lock reads; any other is refused, so a typo cannot run another experiment. */
export const CHECK_PARAMS = ['strategy', 'store', 'workMs', 'ttlMs', 'waitMs', 'waitUntil', 'retryMs', 'fenced', 'line', 'pause', 'leakKb'] as const;

/**
 * The shortest pause between lock attempts: below it, one request with a long waitMs could make
 * tens of thousands of backend calls. A constant, not a setting: it bounds what a client may ask.
 */
export const RETRY_MS_MIN = 5;

/** Refuses any parameter not in `known`, naming it (and what it may have meant). */
export function rejectUnknownParams(query: Query, known: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (known.includes(name)) continue;
    const meant = known.find((k) => k.toLowerCase() === name.toLowerCase());
    throw new BadRequestError(name, `unknown parameter "${name}"${meant ? ` (did you mean ${meant}?)` : ''}`, known);
  }
}

/**
 * The strategy asked for. `line=1` names its `+line` row (the same lock behind a process line), and
 * `zk-watch line` is that row too: a `+` typed unescaped in a query string arrives as a space.
 */
function strategyOf(query: Query, catalog: Catalog, defaultStrategy: string): Strategy {
  const asked = oneString(query, 'strategy') ?? defaultStrategy;
  const name = asked.replace(/ line$/, LINE_SUFFIX);
  const strategy = catalog.get(name);
  if (!strategy) throw new BadRequestError('strategy', `unknown strategy "${asked}"`, catalog.names);
  if (!flag(query, 'line') || name.endsWith(LINE_SUFFIX)) return strategy;
  const lined = catalog.get(linedName(name));
  if (!lined) {
    const linedNames = catalog.names.filter((n) => n.endsWith(LINE_SUFFIX));
    throw new BadRequestError(
      'line',
      `strategy ${name} has no ${LINE_SUFFIX} row (no process line in front of its lock)`,
      linedNames.map((n) => n.slice(0, -LINE_SUFFIX.length)),
    );
  }
  return lined;
}

/** The most one request may leak (1 MB): it bounds what a client may ask, like RETRY_MS_MIN. */
export const LEAK_KB_MAX = 1024;

/** leakKb: gated like pause, as only the fault lab may make an instance leak. */
function leakKbOf(query: Query, faultInjection: boolean): number {
  if (query.leakKb !== undefined && !faultInjection)
    throw new BadRequestError('leakKb', 'leakKb is for the fault lab: start the instance with FAULT_INJECTION=1');
  return intParam(query, 'leakKb', 0, LEAK_KB_MAX, 0);
}

/**
 * waitMs, cut short by waitUntil (epoch ms on this machine's clock) when that comes sooner: the
 * bench ends a throughput window's waits at the window's end, so the requests still queued then
 * are refused at once instead of served at the lock's pace after the measurement (docs/bench.md).
 * A waitUntil already past leaves no wait (waitMs 0: one attempt).
 */
function waitMsOf(query: Query, limits: RequestLimits, now = Date.now()): number {
  const waitMs = intParam(query, 'waitMs', 0, limits.waitMsMax, limits.waitMsDefault);
  if (query.waitUntil === undefined) return waitMs;
  const waitUntil = intParam(query, 'waitUntil', 0, Number.MAX_SAFE_INTEGER, 0);
  return Math.min(waitMs, Math.max(0, waitUntil - now));
}

export function parseCheckParams(query: Query, catalog: Catalog, defaultStrategy: string, limits: RequestLimits, faultInjection = false): CheckParams {
  rejectUnknownParams(query, CHECK_PARAMS);
  const strategy = strategyOf(query, catalog, defaultStrategy);

  const storeName = oneString(query, 'store') ?? strategy.stores[0];
  const store = strategy.stores.find((s) => s === storeName);
  if (!store) throw new BadRequestError('store', `strategy ${strategy.name} works on ${strategy.stores.join(' or ')}, not "${storeName}"`, strategy.stores);

  const fenced = flag(query, 'fenced');
  if (fenced && !strategy.guard?.fencing) {
    const fencing = catalog
      .list()
      .filter((s) => s.guard?.fencing)
      .map((s) => s.name);
    throw new BadRequestError('fenced', `strategy ${strategy.name} has no fencing token to check (its lock issues none)`, fencing);
  }

  const pauseName = oneString(query, 'pause');
  const pause = pauseName === undefined ? undefined : PAUSE_POINTS.find((p) => p === pauseName);
  if (pauseName !== undefined) {
    if (!faultInjection) throw new BadRequestError('pause', 'pause is for the fault lab: start the instance with FAULT_INJECTION=1');
    if (!pause) throw new BadRequestError('pause', `pause must be one of ${PAUSE_POINTS.join(', ')}`, PAUSE_POINTS);
    const own = strategy.pausePoints ?? [];
    const scoped = LOCK_SCOPE_PAUSE_POINTS.some((p) => p === pause);
    if (scoped && !strategy.guard) throw new BadRequestError('pause', `strategy ${strategy.name} takes no lock, so it has no pause points`);
    if (!scoped && !own.some((p) => p === pause)) {
      const valid = [...(strategy.guard ? LOCK_SCOPE_PAUSE_POINTS : []), ...own];
      throw new BadRequestError(
        'pause',
        `strategy ${strategy.name} has no pause point ${pause}${valid.length > 0 ? ` (it has ${valid.join(', ')})` : ''}`,
        valid,
      );
    }
  }

  const leakKb = leakKbOf(query, faultInjection);

  return {
    strategy,
    ...(pause && { pause }),
    ...(leakKb > 0 && { leakKb }),
    request: {
      fenced,
      workMs: intParam(query, 'workMs', 0, limits.workMsMax, 0),
      store: store satisfies StoreKind,
      lock: {
        ttlMs: intParam(query, 'ttlMs', 1, limits.ttlMsMax, limits.ttlMsDefault),
        waitMs: waitMsOf(query, limits),
        retryMs: intParam(query, 'retryMs', RETRY_MS_MIN, limits.retryMsMax, limits.retryMsDefault),
      },
    },
  };
}

const MAX_RESET_COUNT = 10_000_000;
const resetBody = z.object({ count: z.number().int().min(0).max(MAX_RESET_COUNT) });

/** The count a reset asks for. No body (or `{}`, which an empty JSON body parses to) is a 400 naming `body`: no silent default. */
export function parseResetBody(body: unknown): number {
  const isEmpty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (isEmpty) throw new BadRequestError('body', 'POST /stock/reset needs a JSON body {"count": N}; it was empty');
  const parsed = resetBody.safeParse(body);
  if (!parsed.success) {
    throw new BadRequestError('count', `body must be JSON {"count": N} with N a whole number from 0 to ${MAX_RESET_COUNT}`);
  }
  return parsed.data.count;
}

const clockBody = z.object({ offsetMs: z.number().int().min(-LOCK_CLOCK_OFFSET_MAX_MS).max(LOCK_CLOCK_OFFSET_MAX_MS) });

/** POST /fault/clock's body: `{"offsetMs": N}`, this instance's lock clock offset (see locks/lock-clock.ts). */
export function parseClockOffset(body: unknown): number {
  const parsed = clockBody.safeParse(body);
  if (!parsed.success)
    throw new BadRequestError('offsetMs', `body must be JSON {"offsetMs": N} with N a whole number of ms within ±${LOCK_CLOCK_OFFSET_MAX_MS}`);
  return parsed.data.offsetMs;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The client's X-Request-Id, when it sent one: recorded with the deduction it asked for. */
export function parseRequestId(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !REQUEST_ID.test(header)) {
    throw new BadRequestError('X-Request-Id', 'X-Request-Id must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-", given once');
  }
  return header;
}

/** The language of an answer's human text: ?lang= when given (en or zh, nothing else), then Accept-Language, then English. */
export function parseLang(query: Query, acceptLanguage: string | undefined): Lang {
  const raw = oneString(query, 'lang');
  if (raw === undefined) return firstKnownLang(acceptedLanguages(acceptLanguage));
  if (!isLang(raw)) throw new BadRequestError('lang', `lang must be one of ${LANGS.join(', ')}`, LANGS);
  return raw;
}
