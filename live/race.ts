// One race as the page sees it: reset the stock, fire the requests, and every 100 ms a frame of
// what the answers and the stores say, holds included. Ends with the store's own figure.
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { settledUnitsLeft } from '../src/cluster/stores.js';
import { monotonicMs } from '../src/time.js';
import { getAnswer, type Answer } from './answers.js';
import type { FaultBoard } from './faults.js';
import type { LabServers } from './servers.js';
import { overlapping } from './shared/holds.js';
import type { FaultMark, Frame, Hold, LiveEvent, RaceSettings, RaceSummary, RunLog, StrategyInfo, Tally } from './shared/types.js';
import { withRtt } from './rtt.js';
import { StockWatch } from './stock-watch.js';

export const FRAME_MS = 100;
const STOCK_READ_MS = 200;
/** How long the race's first request gets to stop its instance (pause=…) before the rest start anyway. */
const HOLDER_FREEZE_WAIT_MS = 5_000;

export interface RaceContext {
  servers: LabServers;
  faults: FaultBoard;
  maxSeconds: number;
  emit(event: LiveEvent): void;
}

function emptyTally(): Tally {
  return { answered: 0, sold: 0, soldOut: 0, refused: {}, other: {} };
}

function count(tally: Tally, a: Answer): void {
  tally.answered++;
  if (a.status === 200) tally.sold++;
  else if (a.status === 409) tally.soldOut++;
  else if (a.status === 503) tally.refused[a.error ?? 'unknown'] = (tally.refused[a.error ?? 'unknown'] ?? 0) + 1;
  else {
    const key = a.status === 0 ? 'no_answer' : String(a.status);
    tally.other[key] = (tally.other[key] ?? 0) + 1;
  }
}

function checkUrl(base: string, s: RaceSettings, pause?: string): string {
  const q = new URLSearchParams({ strategy: s.strategy, workMs: String(s.workMs), ttlMs: String(s.ttlMs) });
  if (s.fenced) q.set('fenced', '1');
  if (pause) q.set('pause', pause);
  return `${base}/check/lock?${q}`;
}

async function resetStock(base: string, count: number): Promise<void> {
  const res = await fetch(`${base}/stock/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
  if (!res.ok) throw new Error(`stock reset failed: ${res.status} ${await res.text()}`);
}

/**
 * The first holder cut from its lock service while it holds, built step by step as the fault lab
 * does (never raced): its request stops its instance right after the lock is granted
 * (pause=after-acquire); while it is stopped its links to `from` are cut; then it runs on, working
 * cut.workMs on a lease it can neither renew nor hear has ended. Resolves once the cut is in force
 * (or the holder never stopped), with its answer to come; the cut heals once it has answered.
 */
async function holderCut(
  settings: RaceSettings,
  cut: NonNullable<RaceSettings['cutHolder']>,
  ctx: RaceContext,
  signal: AbortSignal,
): Promise<{ answer: Promise<Answer> }> {
  const { servers, faults } = ctx;
  const net = servers.network;
  const proc = servers.instances[0];
  if (!net.layout || !proc) throw new Error('cutting the holder needs the hosts topology');
  const answer = getAnswer(
    checkUrl(servers.info.instances[0] as string, { ...settings, workMs: cut.workMs }, 'after-acquire'),
    new http.Agent({ keepAlive: false }),
    signal,
  );
  const frozen = await faults.holderFrozen(proc, HOLDER_FREEZE_WAIT_MS, HOLDER_FREEZE_WAIT_MS);
  if (!frozen) return { answer };
  let mark: FaultMark;
  try {
    mark = await faults.cut(net, proc.name, cut.from, cut.ms);
  } finally {
    // stopped only so that the cut lands while it holds: it runs on at once
    await faults.healMark(frozen.id);
  }
  return { answer: answer.finally(() => faults.healMark(mark.id)) };
}

/**
 * One race, with the links at its own round trip (settings.rttMs) while it runs and set back before
 * its end is told (a failure, or a page gone: the race ends within maxSeconds and they are set back),
 * so the next race never finds them delayed.
 */
export async function runRace(settings: RaceSettings, strategy: StrategyInfo, ctx: RaceContext): Promise<RunLog> {
  const run = await withRtt(ctx.servers.network, settings.rttMs, ctx.emit, () => race(settings, strategy, ctx));
  ctx.emit({ type: 'done', summary: run.summary as RaceSummary });
  return run;
}

async function race(settings: RaceSettings, strategy: StrategyInfo, ctx: RaceContext): Promise<RunLog> {
  const { servers, faults } = ctx;
  const info = servers.info;
  const lanes = servers.instances.map((p) => p.name);
  const first = info.instances[0] as string;
  const target = settings.via === 'one' ? first : info.nginx;
  // the store the strategy deducts from when none is asked for (the race asks none): its own, first
  const store = strategy.stores[0];
  if (!store) throw new Error(`strategy ${strategy.name} names no store`);
  await resetStock(target, settings.units);

  const watch = await StockWatch.open(info);
  await watch.read();
  const epoch = monotonicMs();
  faults.restartClock(epoch);
  const run: RunLog = { id: new Date().toISOString().replace(/[:.]/g, '-'), startedAt: new Date().toISOString(), lanes, settings, frames: [] };
  ctx.emit({ type: 'start', run: { id: run.id, lanes, settings, startedAt: run.startedAt } });

  const tally = emptyTally();
  const allHolds: Hold[] = [];
  let pending: Hold[] = [];
  let soldAtLastFrame = 0;
  const onAnswer = (a: Answer) => {
    count(tally, a);
    if (!a.timing) return;
    const start = a.timing.grantedAt - epoch;
    const hold: Hold = {
      lane: a.instance ?? '?',
      start,
      end: start + a.timing.holdMs,
      status: a.status,
      ...(a.timing.token !== undefined && { token: a.timing.token }),
      ...(a.error && { error: a.error }),
    };
    allHolds.push(hold);
    pending.push(hold);
  };
  const frame = (): Frame => {
    const f: Frame = {
      t: monotonicMs() - epoch,
      tally: structuredClone(tally),
      goodput: tally.sold - soldAtLastFrame,
      stock: { ...watch.latest },
      holds: pending,
      faults: faults.marks(),
    };
    soldAtLastFrame = tally.sold;
    pending = [];
    run.frames.push(f);
    ctx.emit({ type: 'frame', frame: f });
    return f;
  };
  watch.start(STOCK_READ_MS);
  const ticker = setInterval(frame, FRAME_MS);

  const agent = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // every request in flight listens to it
  const deadline = setTimeout(() => abort.abort(), ctx.maxSeconds * 1_000);
  const t0 = Date.now();
  try {
    let sent = 0;
    const inFlight: Promise<void>[] = [];
    if (settings.freezeHolder) {
      // The race's first request stops its own instance inside the lock; the rest start once it is
      // seen stopped, so the order is built, not hoped for.
      const holderAgent = new http.Agent({ keepAlive: false });
      sent++;
      inFlight.push(getAnswer(checkUrl(first, settings, settings.freezeHolder.point), holderAgent, abort.signal).then(onAnswer));
      await faults.holderFrozen(servers.instances[0]!, settings.freezeHolder.ms, HOLDER_FREEZE_WAIT_MS);
    } else if (settings.cutHolder) {
      sent++;
      const holder = await holderCut(settings, settings.cutHolder, ctx, abort.signal);
      inFlight.push(holder.answer.then(onAnswer));
    }
    const url = checkUrl(target, settings);
    const worker = async () => {
      while (sent < settings.requests && !abort.signal.aborted) {
        sent++;
        onAnswer(await getAnswer(url, agent, abort.signal));
      }
    };
    for (let i = 0; i < Math.min(settings.connections, settings.requests); i++) inFlight.push(worker());
    await Promise.all(inFlight);
  } finally {
    clearTimeout(deadline);
    agent.destroy();
  }
  const seconds = (Date.now() - t0) / 1_000;
  let left: number;
  try {
    left = await settledUnitsLeft(info, store, 300, 10_000);
  } finally {
    clearInterval(ticker);
    await watch.read().catch(() => undefined);
    frame();
    await watch.close();
  }
  const deducted = settings.units - left;
  const summary: RaceSummary = {
    settings,
    store,
    tally,
    deducted,
    left,
    oversold: tally.sold - deducted,
    overlaps: overlapping(allHolds).size,
    seconds,
    goodput: tally.sold / seconds,
  };
  run.summary = summary;
  return run;
}
