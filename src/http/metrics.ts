// GET /metrics (Prometheus text format) through prom-client: Node's default process metrics
// (event-loop lag, heap, GC), the answers by route, strategy, status and error (expected refusals,
// a 503 lock_timeout under contention thousands a second, are counted here instead of logged one by
// one), and what the locks report through their observer (src/locks/observer.ts): acquire waits
// and hold times as histograms, hand-offs, renewals, lost leases, fencing refusals, releases after
// the lease ran out, retries. Every label comes from a closed set (route patterns, strategy names,
// error codes, outcomes, this instance's id), so the number of series stays bounded.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { LockEvent, LockObserver } from '../locks/observer.js';

export interface AnswerLabels {
  /** The route's path pattern ("/check/lock"); omitted when no route matched (a body-parser error). */
  route?: string;
  /** The deduction's strategy, once its parameters were valid. */
  strategy?: string;
  status: number;
  /** The body's `error`; omitted for a 200. */
  error?: string;
}

/** Lock waits run from well under a millisecond (an in-process mutex) to the wait bound (seconds). */
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Holds: a round trip or two, plus workMs; a lease outlived by its work runs to tens of seconds. */
const HOLD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const RETRIES_HELP = 'Attempts made again: reason conflict (an optimistic update), lock_busy (a polling lock found it taken).';

/** Each lock event's counter: name, help, and the reason label it counts under (retries share one counter). */
const EVENT_COUNTERS: Record<LockEvent, [string, string, string?]> = {
  handoff: ['stocklab_lock_handoffs_total', 'Locks passed straight to a waiter of this process (release and acquire fused).'],
  renewal: ['stocklab_lock_renewals_total', 'Watchdog renewals that extended a lease.'],
  renewal_failed: ['stocklab_lock_renewal_failures_total', 'Watchdog renewals that failed or found the lease gone.'],
  lease_lost: ['stocklab_lock_leases_lost_total', 'Leases lost while the work held the lock.'],
  fencing_refused: ['stocklab_fencing_refusals_total', 'Writes the store refused for a stale fencing token.'],
  release_after_expiry: ['stocklab_lock_releases_after_expiry_total', 'Releases that found the lease already gone (it ran out, or another owner took it).'],
  retry_conflict: ['stocklab_retries_total', RETRIES_HELP, 'conflict'],
  retry_busy: ['stocklab_retries_total', RETRIES_HELP, 'lock_busy'],
};

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly answers: Counter<'route' | 'strategy' | 'status' | 'error'>;
  private readonly wait: Histogram<'strategy' | 'instance' | 'outcome'>;
  private readonly hold: Histogram<'strategy' | 'instance'>;
  private readonly events = new Map<LockEvent, { counter: Counter<'strategy' | 'instance' | 'reason'>; reason?: string }>();
  private readonly observers = new Map<string, LockObserver>();

  constructor(private readonly instance: string) {
    // labelled like the lock metrics, so a query can join them per instance
    collectDefaultMetrics({ register: this.registry, labels: { instance } });
    const registers = [this.registry];
    this.answers = new Counter({
      name: 'stocklab_answers_total',
      help: 'Answers sent by this instance, by route, strategy, status and error code.',
      labelNames: ['route', 'strategy', 'status', 'error'],
      registers,
    });
    this.wait = new Histogram({
      name: 'stocklab_lock_wait_seconds',
      help: 'How long acquiring the lock took, by how it ended (acquired, timeout, error).',
      labelNames: ['strategy', 'instance', 'outcome'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.hold = new Histogram({
      name: 'stocklab_lock_hold_seconds',
      help: 'How long the lock was held, from its grant to the end of its release.',
      labelNames: ['strategy', 'instance'],
      buckets: HOLD_BUCKETS,
      registers,
    });
    const counters = new Map<string, Counter<'strategy' | 'instance' | 'reason'>>();
    for (const [event, [name, help, reason]] of Object.entries(EVENT_COUNTERS) as [LockEvent, [string, string, string?]][]) {
      const counter =
        counters.get(name) ??
        new Counter({ name, help, labelNames: reason === undefined ? ['strategy', 'instance'] : ['strategy', 'instance', 'reason'], registers });
      counters.set(name, counter);
      this.events.set(event, { counter, ...(reason !== undefined && { reason }) });
    }
  }

  /** Counts one answer (labels written in the order route, strategy, status, error, as before prom-client). */
  add({ route, strategy, status, error }: AnswerLabels): void {
    this.answers.inc({
      ...(route !== undefined && { route }),
      ...(strategy !== undefined && { strategy }),
      status: String(status),
      ...(error !== undefined && { error }),
    });
  }

  /** What the locks of `strategy`'s deductions report, as these metrics. */
  observerFor(strategy: string): LockObserver {
    let o = this.observers.get(strategy);
    if (!o) {
      const labels = { strategy, instance: this.instance };
      o = {
        waited: (seconds, outcome) => this.wait.observe({ ...labels, outcome }, seconds),
        held: (seconds) => this.hold.observe(labels, seconds),
        event: (kind) => {
          const e = this.events.get(kind);
          e?.counter.inc(e.reason === undefined ? labels : { ...labels, reason: e.reason });
        },
      };
      this.observers.set(strategy, o);
    }
    return o;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
