// Fires a fixed number of GET requests at a URL with autocannon and counts the answers by status.
// Shared by the bench and the tests, so both measure the same way.
import autocannon from 'autocannon';

export interface FireOptions {
  url: string;
  requests: number;
  connections: number;
  /** Stops the run after this long and marks it truncated, so a slow strategy cannot hang the bench. */
  maxSeconds?: number;
  /** Per-request timeout in seconds. */
  timeoutSeconds?: number;
  /** Called once per answer received, for progress reports on long runs. */
  onAnswer?: () => void;
}

export interface FireResult {
  /** Answers received, by HTTP status. */
  byStatus: Record<number, number>;
  /** 200: exactly one unit deducted. */
  ok: number;
  /** 409: sold out. */
  soldOut: number;
  /** Any other HTTP status (400, 503, 500, …). */
  otherStatus: number;
  /** Requests that got no HTTP answer at all (connection errors, timeouts). */
  noAnswer: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
  truncated: boolean;
}

export function fire(opts: FireOptions): Promise<FireResult> {
  return new Promise((resolve, reject) => {
    let truncated = false;
    // autocannon only notices the end at its next sample tick (1 s by default), so its `duration`
    // is rounded up to whole seconds; time the run from the start to the last answer instead.
    const started = Date.now();
    let lastAnswer = started;
    const instance = autocannon(
      {
        url: opts.url,
        connections: Math.min(opts.connections, opts.requests),
        amount: opts.requests,
        timeout: opts.timeoutSeconds ?? 30,
        sampleInt: 100,
      },
      (err, r) => {
        clearTimeout(timer);
        if (err) return reject(err);
        const byStatus: Record<number, number> = {};
        for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) byStatus[Number(code)] = stat.count ?? 0;
        const answered = Object.values(byStatus).reduce((a, b) => a + b, 0);
        const ok = byStatus[200] ?? 0;
        const soldOut = byStatus[409] ?? 0;
        const seconds = answered > 0 ? Math.max(lastAnswer - started, 1) / 1000 : r.duration;
        resolve({
          byStatus,
          ok,
          soldOut,
          otherStatus: answered - ok - soldOut,
          noAnswer: r.errors,
          rps: seconds > 0 ? answered / seconds : 0,
          p50Ms: r.latency.p50,
          p99Ms: r.latency.p99,
          seconds,
          truncated,
        });
      },
    );
    instance.on('response', () => {
      lastAnswer = Date.now();
      opts.onAnswer?.();
    });
    const timer = opts.maxSeconds
      ? setTimeout(() => {
          truncated = true;
          instance.stop();
        }, opts.maxSeconds * 1000)
      : undefined;
  });
}
