// The whole comparison: ceilings first, then every strategy on one instance and on three.
import os from 'node:os';
import { fetchCatalog, selectStrategies, type CatalogEntry } from './catalog.js';
import { checkStoresMatch, measureCeiling, measureStrategy, type FireSettings } from './measure.js';
import type { BenchOptions } from './options.js';
import { progressLine, startLine, tickLine } from './progress.js';
import { orderRuns, REFERENCE_STRATEGY, TOPOLOGY_LABEL, withEfficiency, type BenchReport, type Ceiling, type RunResult, type Topology } from './report.js';
import type { BenchTarget } from './target.js';

export type Log = (line: string) => void;

function settingsOf(o: BenchOptions): FireSettings {
  const params: Record<string, number> = { workMs: o.workMs };
  if (o.ttlMs !== undefined) params.ttlMs = o.ttlMs;
  if (o.waitMs !== undefined) params.waitMs = o.waitMs;
  return { requests: o.requests, connections: o.connections, maxSeconds: o.maxSeconds, params, initial: o.initial };
}

/** The strategies to run; the efficiency reference joins them when a one-instance run is possible. */
function plan(catalog: CatalogEntry[], o: BenchOptions, hasOne: boolean, notes: string[]): CatalogEntry[] {
  const chosen = selectStrategies(catalog, o.strategies);
  if (hasOne && !chosen.some((s) => s.name === REFERENCE_STRATEGY) && catalog.some((s) => s.name === REFERENCE_STRATEGY)) {
    notes.push(`${REFERENCE_STRATEGY} was added as the lock-efficiency reference.`);
    return selectStrategies(catalog, [...(o.strategies ?? []), REFERENCE_STRATEGY]);
  }
  return chosen;
}

export function stampOf(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '');
}

export async function runBench(o: BenchOptions, target: BenchTarget, log: Log): Promise<BenchReport> {
  const started = new Date();
  const notes: string[] = [];
  const bases: [Topology, string][] = target.one ? [['one', target.one], ['three', target.three]] : [['three', target.three]];
  if (!target.one) notes.push('No single instance was given (--instance URL): one-instance runs were skipped and lock efficiency is not available.');

  const catalog = await fetchCatalog(target.one ?? target.three);
  const strategies = plan(catalog, o, target.one !== undefined, notes);
  const settings = settingsOf(o);
  const kinds = [...new Set(strategies.map((s) => s.stores[0]))];
  await checkStoresMatch(target.three, target.stores, kinds);

  log(`bench: ${strategies.length} strategies × ${bases.length} topologies, ${o.requests} requests, ${o.connections} connections, workMs ${o.workMs}, initial ${o.initial}`);
  // Unmeasured warm-up: the first requests to a fresh instance pay for JIT and pool connections.
  for (const [, base] of bases) await measureCeiling(base, 'three', { ...settings, requests: Math.min(settings.requests, 4 * settings.connections) });
  const ceilings: Ceiling[] = [];
  for (const [topology, base] of bases) {
    const c = await measureCeiling(base, topology, settings);
    ceilings.push(c);
    log(`  ceiling  GET /noop  ${TOPOLOGY_LABEL[topology].padEnd(11)}  ${Math.round(c.rps)} req/s  p99 ${c.p99Ms} ms`);
  }

  const runs: RunResult[] = [];
  const total = strategies.length * bases.length;
  for (const s of strategies) {
    for (const [topology, base] of bases) {
      const n = runs.length + 1;
      log(startLine(n, total, s.name, topology));
      const r = await measureStrategy(base, topology, target.stores, s, settings, (answered, secs) =>
        log(tickLine(s.name, topology, answered, o.requests, secs, o.maxSeconds)),
      );
      runs.push(r);
      log(progressLine(n, total, r));
    }
  }

  return {
    stamp: stampOf(started),
    date: started.toISOString(),
    machine: { nproc: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.type()} ${os.release()}` },
    options: { requests: o.requests, connections: o.connections, workMs: o.workMs, ttlMs: o.ttlMs, waitMs: o.waitMs, maxSeconds: o.maxSeconds, initial: o.initial },
    target: { three: target.three, one: target.one ?? null, source: target.source },
    catalog: strategies,
    ceilings,
    runs: orderRuns(withEfficiency(runs), strategies),
    reference: REFERENCE_STRATEGY,
    notes,
  };
}
