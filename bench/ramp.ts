// The overload ramp (`npm run bench -- --ramp`): for each strategy, steps of N concurrent clients
// through nginx, each step a race of 2N requests for N units, read back from the store. Per step:
// goodput, latency, every answer by class, the requests that got no HTTP answer, and oversold. It
// shows where each layer gives way, and what a client sees past that point.
import os from 'node:os';
import { fetchCatalog, selectStrategies } from '../src/load/catalog.js';
import { stopLoad } from '../src/load/fire.js';
import { paramsOf, stampOf } from './bench.js';
import { checkStoresMatch } from './measure.js';
import { RAMP_STRATEGIES, type BenchOptions } from './options.js';
import { race } from '../src/load/race.js';
import type { BenchTarget } from './target.js';
import { answerKey } from '../src/http/answers.js';
import { CLIENTS_PER_PROCESS, refusedOf, REQUESTS_PER_CLIENT, unexpectedOf, type RampReport, type RampStep } from '../report/bench/ramp-results.js';
import type { Log } from '../src/cli/progress.js';

/** Sockets a load process uses besides its clients (IPC, stdio, the runtime's own). */
const PROCESS_FDS = 64;
/** Errors that mean the load generator, not the server, could not open a connection. */
const CLIENT_LIMIT_CODES = ['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS'];
/** The client's own limit, if this many connections over this many processes cannot fit in its open files. */
function fdShortfall(clients: number, processes: number, nofile: number | null): string | undefined {
  const perProcess = Math.ceil(clients / processes);
  return nofile !== null && perProcess + PROCESS_FDS > nofile ? `${perProcess} connections per load process, open-file limit ${nofile}` : undefined;
}

/** Where the ramp reports: finished lines, and a transient line for progress within a step. */
export interface RampOutput {
  line: Log;
  transient: Log;
}

export async function runRamp(o: BenchOptions, target: BenchTarget, out: RampOutput): Promise<RampReport> {
  const log = out.line;
  const started = new Date();
  const catalog = await fetchCatalog(target.three);
  const strategies = selectStrategies(catalog, o.strategies ?? RAMP_STRATEGIES);
  await checkStoresMatch(target.three, target.stores, [...new Set(strategies.map((s) => s.stores[0]))]);
  const params = paramsOf(o);
  const results: RampStep[] = [];
  log(
    `ramp: ${strategies.map((s) => s.name).join(', ')} through ${target.three} at ${o.steps.join(', ')} clients; ${REQUESTS_PER_CLIENT} requests per client, as many units as clients; one load process per ${CLIENTS_PER_PROCESS} clients`,
  );
  try {
    for (const s of strategies) {
      for (const clients of o.steps) {
        const processes = Math.ceil(clients / CLIENTS_PER_PROCESS);
        const requests = REQUESTS_PER_CLIENT * clients;
        const r = await race({
          target: target.three,
          stores: target.stores,
          strategy: s.name,
          store: s.stores[0],
          params,
          initial: clients,
          requests,
          connections: clients,
          processes,
          maxSeconds: o.maxSeconds,
          onAnswers: (answered) => out.transient(`… ${s.name} at ${clients} clients: ${answered}/${requests} answered`),
        });
        const limitErrors = CLIENT_LIMIT_CODES.filter((c) => (r.noAnswerBy[c] ?? 0) > 0).map((c) => `${r.noAnswerBy[c]} ${c}`);
        const clientLimit =
          fdShortfall(clients, processes, r.nofile) ?? (limitErrors.length > 0 ? `the load generator could not connect: ${limitErrors.join(', ')}` : undefined);
        const step: RampStep = {
          strategy: s.name,
          clients,
          processes,
          requests,
          initial: clients,
          nofile: r.nofile,
          ...(clientLimit && { clientLimit }),
          seconds: r.seconds,
          truncated: r.truncated,
          goodput: r.ok / r.seconds,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          byAnswer: r.byAnswer,
          noAnswer: r.noAnswer,
          noAnswerBy: r.noAnswerBy,
          ok: r.ok,
          deducted: r.deducted,
          oversold: r.oversold,
        };
        results.push(step);
        log(stepLine(step));
      }
    }
  } finally {
    stopLoad();
  }
  return {
    stamp: `ramp-${stampOf(started)}`,
    date: started.toISOString(),
    machine: { nproc: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.type()} ${os.release()}` },
    target: target.three,
    strategies: strategies.map((s) => s.name),
    steps: o.steps,
    params,
    maxSeconds: o.maxSeconds,
    results,
    seconds: (Date.now() - started.getTime()) / 1000,
  };
}

export function stepLine(s: RampStep): string {
  const limit = s.clientLimit ? ` [client limit: ${s.clientLimit}]` : '';
  return (
    `[ramp] ${s.strategy} at ${s.clients} clients: ${Math.round(s.goodput)} sold/s, p50 ${Math.round(s.p50Ms)} ms, p99 ${Math.round(s.p99Ms)} ms; ` +
    `${s.ok} sold, ${refusedOf(s)} refused (${s.byAnswer[answerKey(503, 'busy', 'nginx')] ?? 0} by nginx), ${unexpectedOf(s)} unreadable (502, 504, 500…), ${s.noAnswer} unanswered, oversold ${s.oversold}${limit}`
  );
}
