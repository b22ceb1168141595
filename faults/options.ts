// `npm run faults` flags, parsed and checked here so the runner gets plain values.
import { HELP_FLAG, LANG_FLAG, langOption, parseFlags, UsageError } from '../src/cli/args.js';
import type { Lang } from '../src/lang.js';
import { hasNetAdmin } from '../src/net/hosts.js';
import { DEFAULT_SIZES, type FaultSizes } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';

/** The incident gallery's name for --scenario. */
export const INCIDENTS_SCENARIO = 'incidents';

export interface FaultOptions {
  /** Scenario names to run, in the lab's order; all when not given. */
  scenarios: string[];
  /** Only these strategies (within each scenario's own list); all when undefined. */
  strategies?: string[];
  out: string;
  sizes: FaultSizes;
  /** The language of the markdown and the closing lines; the HTML report carries both. */
  lang: Lang;
  /** --scenario incidents: the lock libraries' own bug reports, reproduced (faults/incidents/). */
  incidents?: true;
  /** --chaos: the random nemesis under a steady load instead of the scenarios (faults/chaos/). */
  chaos?: { seconds: number; seed: number; topology: ChaosTopology };
}

/**
 * single: one Redis, one ZooKeeper; replicated: Sentinel failovers and ZooKeeper leader kills join
 * the menu; hosts, hosts,replicated: the same with every server in a network namespace of its own,
 * and partitions join the menu.
 */
export const CHAOS_TOPOLOGIES = ['single', 'replicated', 'hosts', 'hosts,replicated'] as const;
export type ChaosTopology = (typeof CHAOS_TOPOLOGIES)[number];
const isChaosTopology = (t: string): t is ChaosTopology => (CHAOS_TOPOLOGIES as readonly string[]).includes(t);

export const USAGE = `usage: npm run faults -- [options]
  --scenario NAME[,NAME]   only these scenarios (${SCENARIOS.map((s) => s.name).join(', ')}); partition: every partition scenario (root: the hosts topology);
                           ${INCIDENTS_SCENARIO}: the lock libraries' own bug reports, reproduced (alone)
  --strategy NAME[,NAME]   only these strategies, within each scenario's list
  --sell N                 units sold while a holder is frozen (default ${DEFAULT_SIZES.sell})
  --out DIR                where <stamp>.{md,json,html} go (default faults/results)
  --lang en|zh             the table's headings and closing lines in English or Chinese (default en)
  --chaos                  random faults under a steady load, judged at the end (<stamp>-chaos.{md,json,html})
  --seconds N              chaos: how long the load runs (default 600)
  --seed S                 chaos: the fault schedule's seed (default: drawn, and printed to rerun)
  --strategies NAME[,NAME] chaos: only these strategies (default: every one that claims to be exact)
  --topology T             chaos: single (default), replicated (adds Sentinel failovers and ZooKeeper leader kills),
                           hosts or hosts,replicated (root: a network namespace per server; adds partitions)
  --help                   this text`;

const list = (values: string[] | undefined): string[] | undefined =>
  values === undefined
    ? undefined
    : values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean);

/** Every flag `npm run faults` accepts, as node:util's parseArgs takes them. */
export const FAULT_FLAGS = {
  scenario: { type: 'string', multiple: true },
  strategy: { type: 'string', multiple: true },
  sell: { type: 'string' },
  out: { type: 'string', default: 'faults/results' },
  chaos: { type: 'boolean' },
  seconds: { type: 'string' },
  seed: { type: 'string' },
  strategies: { type: 'string', multiple: true },
  topology: { type: 'string' },
  ...LANG_FLAG,
  ...HELP_FLAG,
} as const;

function wholeNumber(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export function parseFaultArgs(argv: string[]): FaultOptions {
  const { values } = parseFlags(argv, FAULT_FLAGS);
  // A family's name (partition) stands for every scenario of the family.
  const names = list(values.scenario)?.flatMap((n) => [n, ...SCENARIOS.filter((s) => s.family === n).map((s) => s.name)]);
  // The incident gallery (faults/incidents/) runs on a cluster of its own, alone.
  const incidents = names?.includes(INCIDENTS_SCENARIO) ?? false;
  if (incidents && (names!.length > 1 || values.chaos)) throw new UsageError(`--scenario ${INCIDENTS_SCENARIO} runs alone`);
  const unknown = (names ?? []).filter((n) => n !== INCIDENTS_SCENARIO && !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) throw new UsageError(`unknown scenario: ${unknown.join(', ')}`);
  const sell = values.sell === undefined ? DEFAULT_SIZES.sell : Number(values.sell);
  // the stock must outlast the sales, the probes and the holder's own unit
  if (!Number.isInteger(sell) || sell < 1 || sell > DEFAULT_SIZES.initial / 2)
    throw new UsageError(`--sell must be a whole number from 1 to ${DEFAULT_SIZES.initial / 2}`);
  if (!values.chaos && (values.seconds ?? values.seed ?? values.strategies ?? values.topology) !== undefined)
    throw new UsageError('--seconds, --seed, --strategies and --topology go with --chaos');
  const topology = values.topology ?? 'single';
  if (!isChaosTopology(topology)) throw new UsageError(`--topology must be one of ${CHAOS_TOPOLOGIES.join(', ')}`);
  if (topology.startsWith('hosts') && !hasNetAdmin()) {
    throw new UsageError(
      `--topology ${topology} needs root (or CAP_NET_ADMIN) to create network namespaces, veth pairs, a bridge and iptables rules; run as root, or use --topology single or replicated`,
    );
  }
  const strategies = list([...(values.strategy ?? []), ...(values.strategies ?? [])]);
  const chaos = values.chaos
    ? {
        seconds: wholeNumber(values.seconds, 'seconds', 600, 30, 86_400),
        seed: wholeNumber(values.seed, 'seed', Math.floor(Math.random() * 1_000_000), 0, 2 ** 32 - 1),
        topology,
      }
    : undefined;
  return {
    ...(chaos && { chaos }),
    ...(incidents && { incidents }),
    scenarios: SCENARIOS.map((s) => s.name).filter((n) => names === undefined || names.includes(n)),
    ...(strategies !== undefined && strategies.length > 0 && { strategies }),
    out: values.out,
    lang: langOption(values.lang),
    sizes: { ...DEFAULT_SIZES, sell },
  };
}
