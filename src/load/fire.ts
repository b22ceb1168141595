// Fires load at a URL from load processes (load-process.ts) and returns what they counted. Shared
// by the bench, compose's failover check and the tests, so all measure the same way. Each process
// starts on first use, is shared by every run of this process, and never keeps it alive when idle.
import { fork, type ChildProcess } from 'node:child_process';
import { bundleOf } from '../bundle.js';
import { percentile, type LoadJob, type LoadResult } from './load.js';
import type { LoadReply, LoadRequest } from './load-process.js';

export type { LoadJob, LoadResult } from './load.js';

interface Pending {
  resolve: (r: LoadResult) => void;
  reject: (e: Error) => void;
  onAnswers?: (answered: number) => void;
}

/** One load process: started on first use, never keeping its parent alive when idle. */
class LoadProcess {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  run(job: LoadJob, onAnswers?: (answered: number) => void): Promise<LoadResult> {
    const c = this.process();
    const id = this.nextId++;
    c.ref();
    c.channel?.ref();
    return new Promise<LoadResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onAnswers });
      c.send({ id, job } satisfies LoadRequest);
    });
  }

  stop(): void {
    this.child?.kill();
    this.child = undefined;
  }

  private process(): ChildProcess {
    if (this.child) return this.child;
    const c = fork(bundleOf('src/load/load-process.ts'), [], { execArgv: ['--enable-source-maps'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    c.on('message', (reply: LoadReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      if (reply.kind === 'progress') return p.onAnswers?.(reply.answered);
      this.pending.delete(reply.id);
      this.idle();
      if (reply.kind === 'done') p.resolve(reply.result);
      else p.reject(new Error(`load generator: ${reply.message}`));
    });
    c.on('exit', (code, signal) => {
      if (this.child === c) this.child = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`load generator exited (${signal ?? `code ${code}`})`));
      }
    });
    this.child = c;
    this.idle();
    return c;
  }

  /** An idle load process must not keep its parent alive. */
  private idle(): void {
    if (!this.child || this.pending.size > 0) return;
    this.child.unref();
    this.child.channel?.unref();
  }
}

/** The load processes of this process: the first serves every single-process run. */
const pool: LoadProcess[] = [];
const processAt = (i: number): LoadProcess => (pool[i] ??= new LoadProcess());

export function fireLoad(job: LoadJob, onAnswers?: (answered: number) => void): Promise<LoadResult> {
  return processAt(0).run(job, onAnswers);
}

/** `total` split into `parts` whole shares that differ by at most one. */
export function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_v, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/**
 * One run spread over `processes` load processes, each holding its share of the connections (and
 * of a race's requests), side by side; their counts are added and their latencies merged. For more
 * connections than one process holds comfortably (its event loop, its open-file limit).
 */
export async function fireLoadSpread(job: LoadJob, processes: number, onAnswers?: (answered: number) => void): Promise<LoadResult> {
  const n = Math.max(1, Math.min(processes, job.connections));
  if (n === 1) return fireLoad(job, onAnswers);
  const connections = shares(job.connections, n);
  const requests = job.requests !== undefined ? shares(job.requests, n) : undefined;
  const answered = new Array<number>(n).fill(0);
  const results = await Promise.all(
    connections.map((c, i) =>
      processAt(i).run({ ...job, connections: c, ...(requests && { requests: requests[i] }), keepLatencies: true }, (a) => {
        answered[i] = a;
        if (i === 0) onAnswers?.(answered.reduce((x, y) => x + y, 0));
      }),
    ),
  );
  return mergeLoadResults(results, job.keepLatencies ?? false);
}

function addCounts<K extends string | number>(into: Record<K, number>, from: Record<K, number>): void {
  for (const [k, v] of Object.entries(from) as [K, number][]) into[k] = (into[k] ?? 0) + v;
}

/** Side-by-side runs as one: counts added, percentiles of every latency, the longest span. */
export function mergeLoadResults(results: LoadResult[], keepLatencies: boolean): LoadResult {
  const byStatus: Record<number, number> = {};
  const byAnswer: Record<string, number> = {};
  const noAnswerBy: Record<string, number> = {};
  for (const r of results) {
    addCounts(byStatus, r.byStatus);
    addCounts(byAnswer, r.byAnswer);
    addCounts(noAnswerBy, r.noAnswerBy);
  }
  const latencies = results.flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
  const sum = (pick: (r: LoadResult) => number) => results.reduce((t, r) => t + pick(r), 0);
  const limits = results.map((r) => r.nofile).filter((l): l is number => l !== null);
  return {
    byStatus,
    byAnswer,
    okTotal: sum((r) => r.okTotal),
    answeredTotal: sum((r) => r.answeredTotal),
    noAnswer: sum((r) => r.noAnswer),
    noAnswerBy,
    nofile: limits.length > 0 ? Math.min(...limits) : null,
    seconds: Math.max(...results.map((r) => r.seconds)),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    truncated: results.some((r) => r.truncated),
    ...(keepLatencies && { latencies }),
    ...mergedMarks(results),
  };
}

/** Side-by-side windows as one: the first start, the latest end of each part. */
function mergedMarks(results: LoadResult[]): Pick<LoadResult, 'marks'> {
  const marks = results.map((r) => r.marks).filter((m): m is NonNullable<LoadResult['marks']> => m !== undefined);
  if (marks.length === 0) return {};
  const latest = (pick: (m: (typeof marks)[number]) => number) => Math.max(...marks.map(pick));
  return {
    marks: {
      startedAt: Math.min(...marks.map((m) => m.startedAt)),
      measureTo: latest((m) => m.measureTo),
      lastAnswerAt: latest((m) => m.lastAnswerAt),
      endedAt: latest((m) => m.endedAt),
    },
  };
}

/** Stops the load processes (the bench calls it when done; tests may leave them to exit with them). */
export function stopLoad(): void {
  for (const p of pool) p.stop();
  pool.length = 0;
}

export interface FireOptions {
  url: string;
  requests: number;
  connections: number;
  /** Stops the run after this long and marks it truncated, so a slow strategy cannot hang its caller. */
  maxSeconds?: number;
  /** Per-request timeout in seconds. */
  timeoutSeconds?: number;
  /** Called about once a second with the answers so far, for progress lines on long runs. */
  onAnswers?: (answered: number) => void;
  /** Load processes to spread the connections over (default 1). */
  processes?: number;
}

/** A race's answers: the load process's counts, plus the totals a race reads first. */
export interface FireResult
  extends Pick<LoadResult, 'byStatus' | 'byAnswer' | 'noAnswer' | 'noAnswerBy' | 'nofile' | 'p50Ms' | 'p99Ms' | 'seconds' | 'truncated'> {
  /** 200: exactly one unit deducted. */
  ok: number;
  /** 409: sold out. */
  soldOut: number;
  /** Any other HTTP status (400, 503, 500, …). */
  otherStatus: number;
  rps: number;
}

/** A fixed number of GET requests, every answer counted by status and by error code. */
export async function fire(opts: FireOptions): Promise<FireResult> {
  const r = await fireLoadSpread(
    {
      url: opts.url,
      connections: opts.connections,
      requests: opts.requests,
      maxSeconds: opts.maxSeconds ?? 600,
      timeoutSeconds: opts.timeoutSeconds ?? 30,
      classify: true,
    },
    opts.processes ?? 1,
    opts.onAnswers,
  );
  const ok = r.byStatus[200] ?? 0;
  const soldOut = r.byStatus[409] ?? 0;
  return {
    byStatus: r.byStatus,
    byAnswer: r.byAnswer,
    ok,
    soldOut,
    otherStatus: r.answeredTotal - ok - soldOut,
    noAnswer: r.noAnswer,
    noAnswerBy: r.noAnswerBy,
    nofile: r.nofile,
    rps: r.answeredTotal / r.seconds,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    seconds: r.seconds,
    truncated: r.truncated,
  };
}
