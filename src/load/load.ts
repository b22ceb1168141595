// One load run with autocannon: a race (a fixed number of requests) or a throughput window (a
// discarded warm-up, then a measured span, then the requests still in flight allowed to finish).
// It runs inside the load process (load-process.ts), so the bench's own event loop never competes
// with the load generator for the answers it counts.
import autocannon from 'autocannon';
import { answerKeyOfBody } from '../http/answers.js';
import { openFileLimits } from '../cluster/processes.js';

export interface LoadJob {
  url: string;
  connections: number;
  /** A race: exactly this many requests. */
  requests?: number;
  /**
   * A throughput window: warm up (discarded), then measure for `seconds`, then drain. With
   * `untilSoldOut` the stock is finite and the window is also the race: the load goes on past the
   * span until the first 409 sold_out (then drains), and the measured span ends at that answer.
   * With `cutWaitsAfterMs` every request carries waitUntil = the span's end + cutWaitsAfterMs, so the
   * requests still waiting for the lock then are refused at once and the drain is the holders' work
   * only. Answers after the span are not measured, and a wait cut after its end could only have ended
   * after it: the span reads the same, as long as cutWaitsAfterMs covers how early a wait may give up
   * (an optimistic retry loop stops when its next pause, up to retryMs, would cross its deadline).
   * Not with untilSoldOut, whose drain is the race's end.
   */
  window?: { warmupSeconds: number; seconds: number; untilSoldOut?: boolean; cutWaitsAfterMs?: number };
  /** Hard bound on the whole run: whatever is unanswered then is abandoned and the run marked truncated. */
  maxSeconds: number;
  /** Per-request timeout. */
  timeoutSeconds: number;
  /** Read the `error` of every non-200 answer's body (races); windows count statuses only. */
  classify: boolean;
  /** Return every latency of the measured span, so runs spread over processes can be merged. */
  keepLatencies?: boolean;
  /** Return when each 200 came, so one run can be cut into spans afterwards (bench/window-span.ts). */
  keepOkTimes?: boolean;
}

export interface LoadResult {
  /** Answers in the measured span, by HTTP status. */
  byStatus: Record<number, number>;
  /** Every answer of the run by answerKey ("200", "409 sold_out", "503 lock_timeout"); classify only. */
  byAnswer: Record<string, number>;
  /** 200 answers over the whole run (warm-up and drain too): what a window's store check compares with. */
  okTotal: number;
  /** Answers over the whole run. */
  answeredTotal: number;
  /**
   * Requests that got no HTTP answer: timeouts, connection errors, and (a race) requests whose
   * connection the server closed before answering, which autocannon drops silently.
   */
  noAnswer: number;
  /** noAnswer by cause: an error code (ECONNRESET, EMFILE…), `timeout`, or `closed` (closed unanswered). */
  noAnswerBy: Record<string, number>;
  /** This process's open-file limit (soft): what bounds the connections it can hold. */
  nofile: number | null;
  /** With keepLatencies: every latency of the measured span, in ms. */
  latencies?: number[];
  /** With keepOkTimes: each 200's arrival, in ms since the run started. */
  okTimes?: number[];
  /** Length of the measured span: the window, or a race's first request to its last answer. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  truncated: boolean;
  /** When the run's parts began and ended (epoch ms), for a window's breakdown of its time. */
  marks?: LoadMarks;
}

/** Epoch ms in the load process: autocannon started, the window's span ended, the last answer, the result ready. */
export interface LoadMarks {
  startedAt: number;
  /** The measured span's end: the window's, or the first 409 sold_out when that came sooner. */
  measureTo: number;
  lastAnswerAt: number;
  endedAt: number;
}

/**
 * What autocannon's Client has that its types do not show: the per-connection request budget.
 * responseMax is autocannon's internal field, not its API: package.json pins autocannon exactly
 * (9.0.0) so an upgrade is a deliberate change that re-checks it (test/integration/bench-e2e.test.ts
 * runs windows, each of which must end once its in-flight requests are answered).
 */
interface BudgetedClient {
  responseMax?: number;
  reqsMade: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function runLoad(job: LoadJob, onAnswers?: (answered: number) => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const byStatus: Record<number, number> = {};
    const byAnswer: Record<string, number> = {};
    const latencies: number[] = [];
    const noAnswerBy: Record<string, number> = {};
    const okTimes: number[] = [];
    let okTotal = 0;
    let answeredTotal = 0;
    let truncated = false;
    let lastAnswer = 0;
    let soldOutAt: number | undefined;
    const untilSoldOut = job.window?.untilSoldOut === true;
    // untilSoldOut: the span ends at the first sold_out, known only when it comes, so the span's
    // answers are kept and counted at the end.
    const spanAnswers: { at: number; status: number; ms: number }[] = [];

    const started = Date.now();
    const measureFrom = started + (job.window ? job.window.warmupSeconds * 1000 : 0);
    const windowTo = job.window ? measureFrom + job.window.seconds * 1000 : Number.POSITIVE_INFINITY;
    const spanEnd = () => Math.max(measureFrom, Math.min(windowTo, soldOutAt ?? Number.POSITIVE_INFINITY));
    const inWindow = (t: number) => t >= measureFrom && t < windowTo;
    // When a connection stops sending: a window at its end; a sold-out window once the stock is gone.
    const sendingOver = (t: number) => (untilSoldOut ? soldOutAt !== undefined : t >= windowTo);

    const cutAfterMs = untilSoldOut ? undefined : job.window?.cutWaitsAfterMs;
    const instance = autocannon(
      {
        url: cutAfterMs === undefined ? job.url : `${job.url}${job.url.includes('?') ? '&' : '?'}waitUntil=${windowTo + cutAfterMs}`,
        connections: job.requests !== undefined ? Math.min(job.connections, job.requests) : job.connections,
        ...(job.requests !== undefined ? { amount: job.requests } : { duration: job.maxSeconds + 1 }),
        timeout: job.timeoutSeconds,
        // autocannon notices the end of a run only at its next sample tick, then stops: at 100 ms
        // that wait was a median 73 ms of every window (issue 47); a tick costs microseconds.
        sampleInt: 10,
        ...((job.classify || untilSoldOut) && {
          requests: [
            {
              onResponse: (status: number, body: string) => {
                const key = answerKeyOfBody(status, body);
                byAnswer[key] = (byAnswer[key] ?? 0) + 1;
              },
            },
          ],
        }),
      },
      (err, r) => {
        clearTimeout(bound);
        clearInterval(progress);
        if (err) return reject(err);
        const measureTo = spanEnd();
        for (const a of spanAnswers) {
          if (a.at >= measureTo) continue;
          byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
          latencies.push(a.ms);
        }
        const sorted = latencies.sort((a, b) => a - b);
        const seconds = job.window ? (measureTo - measureFrom) / 1000 : Math.max(lastAnswer - started, 1) / 1000;
        // A race sends exactly `requests` (autocannon's budget counts a request on a closed
        // connection too): whatever has neither an answer nor an error was closed unanswered.
        const closed = job.requests !== undefined && !truncated ? Math.max(0, job.requests - answeredTotal - r.errors) : 0;
        if (closed > 0) noAnswerBy.closed = closed;
        resolve({
          byStatus,
          byAnswer,
          okTotal,
          answeredTotal,
          noAnswer: r.errors + closed,
          noAnswerBy,
          nofile: openFileLimits().soft,
          ...(job.keepLatencies && { latencies: sorted }),
          ...(job.keepOkTimes && { okTimes }),
          seconds,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          truncated,
          ...(job.window && { marks: { startedAt: started, measureTo, lastAnswerAt: lastAnswer, endedAt: Date.now() } }),
        });
      },
    );

    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      const now = Date.now();
      lastAnswer = now;
      answeredTotal++;
      if (statusCode === 200) {
        okTotal++;
        if (job.keepOkTimes) okTimes.push(now - started);
      }
      if (statusCode === 409 && soldOutAt === undefined && untilSoldOut) soldOutAt = now;
      if (inWindow(now)) spanAnswers.push({ at: now, status: statusCode, ms: responseTime });
      // The window is over: this connection sends nothing more once its answer is in, so the run
      // ends when the requests already in flight have finished (none is abandoned mid-deduction).
      if (job.window && sendingOver(now)) {
        const c = client as unknown as BudgetedClient;
        c.responseMax = Math.max(1, c.reqsMade);
      }
    });

    instance.on('reqError', (err: NodeJS.ErrnoException) => {
      const cause = err.code ?? (err.message === 'request timed out' ? 'timeout' : 'error');
      noAnswerBy[cause] = (noAnswerBy[cause] ?? 0) + 1;
    });

    const progress = setInterval(() => onAnswers?.(answeredTotal), 1_000);
    const bound = setTimeout(() => {
      truncated = true;
      instance.stop();
    }, job.maxSeconds * 1000);
  });
}
