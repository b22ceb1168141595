import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';
import {
  BadRequestError,
  CHECK_PARAMS,
  LEAK_KB_MAX,
  parseCheckParams,
  parseClockOffset,
  parseRequestId,
  parseResetBody,
  RETRY_MS_MIN,
} from '../../src/http/params.js';
import { FencedError } from '../../src/fencing.js';
import { describeError } from '../../src/http/errors.js';
import { PostgresConnectionError, pgFailure } from '../../src/db/postgres-pool.js';
import { DependencyDownError, OutcomeUnknownError, callDependency, callDependencyWrite, isConnectionError } from '../../src/dependency.js';
import { LockTimeoutError } from '../../src/locks/errors.js';
import { ZkDeadlineError } from '../../src/locks/zk/session.js';
import { Catalog } from '../../src/strategies/catalog.js';
import type { SharedDeps, Strategy } from '../../src/strategies/strategy.js';

const limits = loadServiceConfig({}).limits;

function strategy(name: string, stores: Strategy['stores']): Strategy {
  return {
    name,
    family: 'baseline',
    course: '§1.4–1.6',
    description: { en: name, zh: name },
    expected: { oneInstance: 'exact', threeInstances: 'exact' },
    stores,
    deduct: async () => ({ outcome: 'deducted' }),
  };
}

// Validation needs only names, stores and guards, so a catalog of inert entries is enough here:
// alpha takes no lock, beta takes one without tokens, gamma one that issues Redis tokens, delta one
// with a pause point inside its lock; beta+line is beta's lock behind a process line.
const catalog = await Catalog.open({} as SharedDeps, [
  async () => ({
    strategies: [
      strategy('alpha', ['mysql', 'redis']),
      { ...strategy('beta', ['redis']), guard: {} },
      { ...strategy('beta+line', ['redis']), guard: {} },
      { ...strategy('gamma', ['mysql']), guard: { fencing: 'redis' } },
      { ...strategy('delta', ['mysql']), guard: {}, pausePoints: ['after-setnx'] },
    ],
  }),
]);

function rejection(fn: () => unknown): BadRequestError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BadRequestError) return err;
    throw err;
  }
  throw new Error('expected a BadRequestError');
}

describe('GET /check/lock parameters', () => {
  it('applies the default strategy, store and lock bounds', () => {
    const p = parseCheckParams({}, catalog, 'alpha', limits);
    expect(p.strategy.name).toBe('alpha');
    expect(p.request).toEqual({ fenced: false, workMs: 0, store: 'mysql', lock: { ttlMs: 30_000, waitMs: 10_000, retryMs: 20 } });
    expect(parseCheckParams({ strategy: 'beta' }, catalog, 'alpha', limits).request.store).toBe('redis');
  });

  it('accepts whole numbers inside the bounds', () => {
    const p = parseCheckParams({ workMs: '25', ttlMs: '500', waitMs: '0', retryMs: '5', store: 'redis' }, catalog, 'alpha', limits);
    expect(p.request).toEqual({ fenced: false, workMs: 25, store: 'redis', lock: { ttlMs: 500, waitMs: 0, retryMs: 5 } });
  });

  it('cuts waitMs short at waitUntil (epoch ms) when that comes sooner, to no wait once it has passed', () => {
    const waitOf = (query: Record<string, string>) => parseCheckParams(query, catalog, 'alpha', limits).request.lock.waitMs;
    const now = Date.now();
    const soon = waitOf({ waitUntil: String(now + 3_000) });
    // parsed a few ms after `now`: at most 3 s left, never more
    expect(soon).toBeLessThanOrEqual(3_000);
    expect(soon).toBeGreaterThan(2_000);
    expect(waitOf({ waitMs: '500', waitUntil: String(now + 3_000) })).toBe(500);
    expect(waitOf({ waitUntil: String(now + 3_600_000) })).toBe(10_000);
    expect(waitOf({ waitMs: '500', waitUntil: String(now - 1_000) })).toBe(0);
  });

  it('names an unknown strategy and lists the valid ones', () => {
    const err = rejection(() => parseCheckParams({ strategy: 'nope' }, catalog, 'alpha', limits));
    expect(err.param).toBe('strategy');
    expect(err.valid).toEqual(['alpha', 'beta', 'beta+line', 'gamma', 'delta']);
  });

  it.each([
    ['workMs', '-1'],
    ['workMs', '10001'],
    ['workMs', 'abc'],
    ['workMs', '1e3'],
    ['workMs', ''],
    ['ttlMs', '0'],
    ['ttlMs', '600001'],
    ['waitMs', '60001'],
    ['waitUntil', '-1'],
    ['waitUntil', '1.5'],
    ['waitUntil', 'soon'],
    ['retryMs', '0'],
    ['retryMs', '4'],
    ['retryMs', '1'],
  ])('rejects %s=%s naming it', (param, value) => {
    expect(rejection(() => parseCheckParams({ [param]: value }, catalog, 'alpha', limits)).param).toBe(param);
  });

  it('names an unknown parameter, a typo included, and lists the known ones', () => {
    const typo = rejection(() => parseCheckParams({ strategy: 'alpha', workms: '100' }, catalog, 'alpha', limits));
    expect(typo.param).toBe('workms');
    expect(typo.message).toContain('workMs');
    expect(typo.valid).toEqual(CHECK_PARAMS);
    expect(rejection(() => parseCheckParams({ cachebust: '1' }, catalog, 'alpha', limits)).param).toBe('cachebust');
  });

  it('takes a retryMs from its floor', () => {
    expect(RETRY_MS_MIN).toBe(5);
    expect(parseCheckParams({ retryMs: String(RETRY_MS_MIN) }, catalog, 'alpha', limits).request.lock.retryMs).toBe(RETRY_MS_MIN);
  });

  it('rejects a parameter given twice and a store the strategy cannot use', () => {
    expect(rejection(() => parseCheckParams({ strategy: ['alpha', 'beta'] }, catalog, 'alpha', limits)).param).toBe('strategy');
    const err = rejection(() => parseCheckParams({ strategy: 'beta', store: 'mysql' }, catalog, 'alpha', limits));
    expect(err.param).toBe('store');
    expect(err.valid).toEqual(['redis']);
  });

  it('takes fenced=1 only for a strategy whose lock issues fencing tokens, and lists those', () => {
    expect(parseCheckParams({ strategy: 'gamma', fenced: '1' }, catalog, 'alpha', limits).request.fenced).toBe(true);
    expect(parseCheckParams({ strategy: 'beta', fenced: '0' }, catalog, 'alpha', limits).request.fenced).toBe(false);
    const err = rejection(() => parseCheckParams({ strategy: 'beta', fenced: '1' }, catalog, 'alpha', limits));
    expect([err.param, err.valid]).toEqual(['fenced', ['gamma']]);
    expect(rejection(() => parseCheckParams({ strategy: 'gamma', fenced: 'yes' }, catalog, 'alpha', limits)).param).toBe('fenced');
  });

  it('takes line=1 for a strategy with a +line row, and "beta line" (an unescaped +) as that row', () => {
    const named = (query: Record<string, string>) => parseCheckParams(query, catalog, 'alpha', limits).strategy.name;
    expect(named({ strategy: 'beta', line: '1' })).toBe('beta+line');
    expect(named({ strategy: 'beta+line' })).toBe('beta+line');
    expect(named({ strategy: 'beta line' })).toBe('beta+line');
    expect(named({ strategy: 'beta line', line: '1' })).toBe('beta+line');
    expect(named({ strategy: 'beta+line', line: '1' })).toBe('beta+line');
    expect(named({ strategy: 'beta', line: '0' })).toBe('beta');
    const err = rejection(() => parseCheckParams({ strategy: 'gamma', line: '1' }, catalog, 'alpha', limits));
    expect([err.param, err.valid]).toEqual(['line', ['beta']]);
    expect(rejection(() => parseCheckParams({ line: '1' }, catalog, 'alpha', limits)).param).toBe('line');
    expect(rejection(() => parseCheckParams({ strategy: 'beta', line: 'yes' }, catalog, 'alpha', limits)).param).toBe('line');
    expect(rejection(() => parseCheckParams({ strategy: 'gamma line' }, catalog, 'alpha', limits)).param).toBe('strategy');
  });

  it('takes pause only with fault injection on, at a known point, for a strategy that takes a lock', () => {
    expect(parseCheckParams({ strategy: 'beta', pause: 'before-write' }, catalog, 'alpha', limits, true).pause).toBe('before-write');
    expect(rejection(() => parseCheckParams({ strategy: 'beta', pause: 'before-write' }, catalog, 'alpha', limits, false)).param).toBe('pause');
    expect(rejection(() => parseCheckParams({ strategy: 'beta', pause: 'later' }, catalog, 'alpha', limits, true)).param).toBe('pause');
    expect(rejection(() => parseCheckParams({ strategy: 'alpha', pause: 'after-acquire' }, catalog, 'alpha', limits, true)).param).toBe('pause');
  });

  it('takes a strategy’s own pause point (inside its lock) only for a strategy that has it, and lists the points it has', () => {
    expect(parseCheckParams({ strategy: 'delta', pause: 'after-setnx' }, catalog, 'alpha', limits, true).pause).toBe('after-setnx');
    expect(parseCheckParams({ strategy: 'delta', pause: 'after-acquire' }, catalog, 'alpha', limits, true).pause).toBe('after-acquire');
    expect(rejection(() => parseCheckParams({ strategy: 'delta', pause: 'after-setnx' }, catalog, 'alpha', limits, false)).param).toBe('pause');
    const refused = rejection(() => parseCheckParams({ strategy: 'beta', pause: 'after-setnx' }, catalog, 'alpha', limits, true));
    expect([refused.param, refused.valid]).toEqual(['pause', ['after-acquire', 'before-write']]);
  });

  it('takes leakKb (the soak’s real leak) only with fault injection on, as whole KB from 0 to 1024, naming leakKb otherwise', () => {
    expect(LEAK_KB_MAX).toBe(1024);
    expect(parseCheckParams({ leakKb: '64' }, catalog, 'alpha', limits, true).leakKb).toBe(64);
    expect(parseCheckParams({ leakKb: '1024' }, catalog, 'alpha', limits, true).leakKb).toBe(1024);
    // 0 leaks nothing, so it is no leak at all; absent, the same
    expect(parseCheckParams({ leakKb: '0' }, catalog, 'alpha', limits, true)).not.toHaveProperty('leakKb');
    expect(parseCheckParams({}, catalog, 'alpha', limits, true)).not.toHaveProperty('leakKb');
    const off = rejection(() => parseCheckParams({ leakKb: '64' }, catalog, 'alpha', limits, false));
    expect([off.param, off.message]).toEqual(['leakKb', 'leakKb is for the fault lab: start the instance with FAULT_INJECTION=1']);
    expect(rejection(() => parseCheckParams({ leakKb: '0' }, catalog, 'alpha', limits)).param).toBe('leakKb');
    for (const value of ['1025', '-1', '1.5', 'abc', '', ['1', '2']])
      expect(rejection(() => parseCheckParams({ leakKb: value }, catalog, 'alpha', limits, true)).param).toBe('leakKb');
  });

  it('takes a lock clock offset (POST /fault/clock) of whole ms within an hour either way, naming offsetMs otherwise', () => {
    expect(parseClockOffset({ offsetMs: -5_000 })).toBe(-5_000);
    for (const body of [{}, { offsetMs: 1.5 }, { offsetMs: 3_600_001 }, { offsetMs: '5' }, undefined])
      expect(rejection(() => parseClockOffset(body)).param).toBe('offsetMs');
  });

  it('takes an X-Request-Id of safe characters and names the header otherwise', () => {
    expect(parseRequestId(undefined)).toBeUndefined();
    expect(parseRequestId('run-7.req_42')).toBe('run-7.req_42');
    for (const bad of ['', 'a b', 'x'.repeat(65), ['a', 'b']]) expect(rejection(() => parseRequestId(bad)).param).toBe('X-Request-Id');
  });
});

describe('POST /stock/reset body', () => {
  it('takes a whole count and names `count` otherwise', () => {
    expect(parseResetBody({ count: 42 })).toBe(42);
    for (const body of [{ count: '42' }, { count: -1 }, { count: 1.5 }, { other: 1 }, 'x', { count: 1e12 }]) {
      expect(rejection(() => parseResetBody(body)).param).toBe('count');
    }
  });

  it('names `body` when there is none (or `{}`, what an empty JSON body parses to): no silent default count', () => {
    for (const body of [undefined, {}]) expect(rejection(() => parseResetBody(body)).param).toBe('body');
  });
});

describe('error answers', () => {
  it('maps each failure to its status and code', () => {
    expect(describeError(new BadRequestError('workMs', 'bad'))).toMatchObject({ status: 400, body: { error: 'bad_request', param: 'workMs' } });
    expect(describeError(new LockTimeoutError('r', 10))).toMatchObject({ status: 503, body: { error: 'lock_timeout' } });
    expect(describeError(new FencedError({ source: 'redis', token: 7n }, 'write'))).toMatchObject({ status: 503, body: { error: 'fenced' } });
    expect(describeError(new DependencyDownError('redis', new Error('x')))).toMatchObject({ status: 503, body: { error: 'redis_unavailable' } });
    // a ZooKeeper call past its deadline outside a lock wait (a fenced holder's token read, seen in a chaos run as a 500)
    expect(describeError(new ZkDeadlineError())).toMatchObject({ status: 503, body: { error: 'zookeeper_unavailable' } });
    expect(describeError(new Error('bug'))).toMatchObject({ status: 500, body: { error: 'internal' } });
  });

  it("takes pg's connect errors (its own timeout, a connection ended during the handshake) as a connection never opened: postgres_unavailable", async () => {
    for (const message of ['timeout expired', 'Connection terminated unexpectedly', 'Connection terminated due to connection timeout']) {
      const opened = () => Promise.reject(pgFailure(new Error(message), false));
      await expect(callDependencyWrite('postgres', opened)).rejects.toBeInstanceOf(DependencyDownError);
      await expect(callDependency('postgres', opened).catch(describeError)).resolves.toMatchObject({ status: 503, body: { error: 'postgres_unavailable' } });
    }
    // Only the exact connect-timeout text: a statement's own error that mentions a timeout is not a lost connection.
    expect(pgFailure(new Error('canceling statement due to statement timeout expired'), false)).not.toBeInstanceOf(PostgresConnectionError);
  });

  it("answers InnoDB's deadlock victim 503 deadlock wherever it lands, as TypeORM wraps it too (requests mixing strategies on the one row)", () => {
    const victim = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    expect(describeError(victim)).toMatchObject({ status: 503, body: { error: 'deadlock' } });
    expect(describeError(Object.assign(new Error('query failed'), { driverError: victim }))).toMatchObject({ status: 503, body: { error: 'deadlock' } });
  });

  it('recognises connection failures however deeply they are wrapped', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(isConnectionError(refused)).toBe(true);
    expect(isConnectionError(Object.assign(new Error('query failed'), { driverError: refused }))).toBe(true);
    expect(isConnectionError(new Error('wrapped', { cause: refused }))).toBe(true);
    expect(isConnectionError(new Error("Duplicate entry '1' for key 'PRIMARY'"))).toBe(false);
  });

  it('tells a write that never left (unavailable) from one whose answer was lost (outcome_unknown)', async () => {
    const fail = (err: Error) => callDependencyWrite('redis', () => Promise.reject(err));
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    await expect(fail(refused)).rejects.toBeInstanceOf(DependencyDownError);
    await expect(fail(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).rejects.toBeInstanceOf(DependencyDownError);
    await expect(fail(new Error('Command timed out'))).rejects.toBeInstanceOf(OutcomeUnknownError);
    await expect(
      fail(Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' })),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    await expect(fail(new Error("Duplicate entry '1' for key 'PRIMARY'"))).rejects.not.toBeInstanceOf(OutcomeUnknownError);
    // A verdict made inside a wider call is kept.
    await expect(callDependency('redis', () => fail(new Error('Command timed out')))).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(describeError(new OutcomeUnknownError('mysql', new Error('x')))).toMatchObject({ status: 503, body: { error: 'outcome_unknown' } });
  });

  it("takes a Redis server's refusal to write (a minority master, a demoted one) as nothing applied: redis_unavailable, not a 500", async () => {
    for (const message of [
      'NOREPLICAS Not enough good replicas to write.',
      "READONLY You can't write against a read only replica.",
      'MASTERDOWN Link with MASTER is down',
    ]) {
      await expect(callDependencyWrite('redis', () => Promise.reject(new Error(message)))).rejects.toBeInstanceOf(DependencyDownError);
      await expect(callDependency('redis', () => Promise.reject(new Error(message)))).rejects.toBeInstanceOf(DependencyDownError);
    }
    await expect(callDependency('redis', () => Promise.reject(new Error('ERR unknown command')))).rejects.not.toBeInstanceOf(DependencyDownError);
  });
});
