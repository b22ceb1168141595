// What the lock scope reports to its observer (src/locks/observer.ts), and how the service turns
// that into Prometheus metrics (src/http/metrics.ts): waits by outcome, holds, lost leases,
// releases after the lease ran out, fencing refusals; nothing reported outside an observer.
import { describe, expect, it } from 'vitest';
import { FencedError } from '../../src/fencing.js';
import { ServiceMetrics } from '../../src/http/metrics.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { Handoffs } from '../../src/locks/handoff.js';
import { Renewal } from '../../src/locks/redis/hash/renewal.js';
import { leaseOf, type AcquireOptions, type Lock } from '../../src/locks/lock.js';
import { InProcessMutexLock } from '../../src/locks/mutex.js';
import { observedBy, type LockObserver } from '../../src/locks/observer.js';
import { withLock } from '../../src/locks/scope.js';

const R = 'stock:1';
const opts: AcquireOptions = { owner: 'o1', ttlMs: 30_000, waitMs: 50, retryMs: 5 };

function recorder() {
  const seen: string[] = [];
  const observer: LockObserver = {
    waited: (s, outcome) => seen.push(`waited ${outcome}${s >= 0 ? '' : ' negative'}`),
    held: (s) => seen.push(`held${s >= 0 ? '' : ' negative'}`),
    event: (kind) => seen.push(kind),
  };
  return { seen, observer };
}

describe('the lock scope reports to the observer of the work', () => {
  it('a wait and a hold per grant; a wait that timed out', async () => {
    const lock = new InProcessMutexLock();
    const { seen, observer } = recorder();
    await observedBy(observer, async () => {
      await withLock(lock, R, opts, async () => {
        // a second owner waits past waitMs while the first holds
        await expect(withLock(lock, R, { ...opts, owner: 'o2' }, async () => undefined)).rejects.toThrow(LockTimeoutError);
      });
    });
    expect(seen).toEqual(['waited acquired', 'waited timeout', 'held']);
  });

  it('a lease lost during the work, a release that found it gone, a fencing refusal', async () => {
    const lost = new AbortController();
    const lock: Lock = {
      acquire: async () =>
        leaseOf(R, lost.signal, async () => {
          throw new LockNotHeldError(R);
        }),
    };
    const { seen, observer } = recorder();
    await observedBy(observer, () => withLock(lock, R, opts, async () => lost.abort('expired')));
    expect(seen).toEqual(['waited acquired', 'lease_lost', 'held', 'release_after_expiry']);

    const fenced = recorder();
    const plain: Lock = { acquire: async () => leaseOf(R, new AbortController().signal, async () => undefined) };
    await expect(
      observedBy(fenced.observer, () =>
        withLock(plain, R, opts, async () => {
          throw new FencedError({ source: 'mysql', token: 1n } as never, 'write');
        }),
      ),
    ).rejects.toThrow(FencedError);
    expect(fenced.seen).toEqual(['waited acquired', 'fencing_refused', 'held']);
  });

  it('a hand-off the holder settled with a grant (not one that failed); renewals, kept and failed', async () => {
    const { seen, observer } = recorder();
    const handoffs = new Handoffs<string, number>();
    handoffs.offer(R, 'a');
    handoffs.offer(R, 'b');
    observedBy(observer, () => {
      handoffs.claim(R)?.settle(undefined);
      handoffs.claim(R)?.settle(7);
    });
    expect(seen).toEqual(['handoff']);

    const renewals = recorder();
    const answers = [true, false];
    // the renewal's timers are set inside the observed call: they report to the same observer
    const renewal = observedBy(renewals.observer, () => new Renewal({ renew: async () => answers.shift() ?? false }, 30, Date.now()));
    await new Promise((resolve) => renewal.lost.addEventListener('abort', resolve));
    expect(renewals.seen).toEqual(['renewal', 'renewal_failed']);
  });

  it('reports nothing without an observer', async () => {
    await expect(withLock(new InProcessMutexLock(), R, opts, async () => 'ok')).resolves.toEqual({ value: 'ok' });
  });
});

describe('ServiceMetrics', () => {
  it('exposes the answers as before, the lock histograms and counters by strategy and instance, and the process metrics', async () => {
    const m = new ServiceMetrics('app-8000');
    m.add({ route: '/check/lock', strategy: 'mutex', status: 503, error: 'lock_timeout' });
    m.add({ route: '/check/lock', strategy: 'mutex', status: 200 });
    const o = m.observerFor('mutex');
    o.waited(0.002, 'acquired');
    o.held(0.004);
    o.event('handoff');
    o.event('renewal');
    o.event('retry_busy');
    o.event('retry_busy');
    o.event('retry_conflict');
    // the event-loop lag is measured on a setImmediate the first collection starts
    await m.text();
    await new Promise((resolve) => setImmediate(resolve));
    const text = await m.text();
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('stocklab_answers_total{route="/check/lock",strategy="mutex",status="503",error="lock_timeout"} 1');
    expect(text).toContain('stocklab_answers_total{route="/check/lock",strategy="mutex",status="200"} 1');
    expect(text).toContain('stocklab_lock_wait_seconds_bucket{le="0.0025",strategy="mutex",instance="app-8000",outcome="acquired"} 1');
    expect(text).toContain('stocklab_lock_hold_seconds_count{strategy="mutex",instance="app-8000"} 1');
    expect(text).toContain('stocklab_lock_handoffs_total{strategy="mutex",instance="app-8000"} 1');
    expect(text).toContain('stocklab_lock_renewals_total{strategy="mutex",instance="app-8000"} 1');
    expect(text).toContain('stocklab_retries_total{strategy="mutex",instance="app-8000",reason="lock_busy"} 2');
    expect(text).toContain('stocklab_retries_total{strategy="mutex",instance="app-8000",reason="conflict"} 1');
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{instance="app-8000"\} /m);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });
});
