// Fires load at a URL from the load process (load-process.ts) and returns what it counted. Shared
// by the bench and the tests, so both measure the same way. The process starts on first use, is
// shared by every run of this process, and never keeps it alive when idle.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load.js';
import type { LoadReply, LoadRequest } from './load-process.js';

export type { LoadJob, LoadResult } from './load.js';

interface Pending {
  resolve: (r: LoadResult) => void;
  reject: (e: Error) => void;
  onAnswers?: (answered: number) => void;
}

let child: ChildProcess | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function loadProcess(): ChildProcess {
  if (child) return child;
  const entry = fileURLToPath(new URL('./load-process.ts', import.meta.url));
  const c = fork(entry, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  c.on('message', (reply: LoadReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    if (reply.kind === 'progress') return p.onAnswers?.(reply.answered);
    pending.delete(reply.id);
    idle();
    if (reply.kind === 'done') p.resolve(reply.result);
    else p.reject(new Error(`load generator: ${reply.message}`));
  });
  c.on('exit', (code, signal) => {
    child = undefined;
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new Error(`load generator exited (${signal ?? `code ${code}`})`));
    }
  });
  child = c;
  idle();
  return c;
}

/** An idle load process must not keep its parent alive. */
function idle(): void {
  if (!child || pending.size > 0) return;
  child.unref();
  child.channel?.unref();
}

export function fireLoad(job: LoadJob, onAnswers?: (answered: number) => void): Promise<LoadResult> {
  const c = loadProcess();
  const id = nextId++;
  c.ref();
  c.channel?.ref();
  return new Promise<LoadResult>((resolve, reject) => {
    pending.set(id, { resolve, reject, onAnswers });
    c.send({ id, job } satisfies LoadRequest);
  });
}

/** Stops the load process (the bench calls it when done; tests may leave it to exit with them). */
export function stopLoad(): void {
  child?.kill();
  child = undefined;
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
}

/** A race's answers: the load process's counts, plus the totals a race reads first. */
export interface FireResult extends Pick<LoadResult, 'byStatus' | 'byAnswer' | 'noAnswer' | 'p50Ms' | 'p99Ms' | 'seconds' | 'truncated'> {
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
  const r = await fireLoad(
    { url: opts.url, connections: opts.connections, requests: opts.requests, maxSeconds: opts.maxSeconds ?? 600, timeoutSeconds: opts.timeoutSeconds ?? 30, classify: true },
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
    rps: r.answeredTotal / r.seconds,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    seconds: r.seconds,
    truncated: r.truncated,
  };
}
