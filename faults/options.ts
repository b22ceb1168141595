// `npm run faults` flags, parsed and checked here so the runner gets plain values.
import { HELP_FLAG, parseFlags, UsageError } from '../src/cli/args.js';
import { DEFAULT_SIZES, type FaultSizes } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';

export interface FaultOptions {
  /** Scenario names to run, in the lab's order; all when not given. */
  scenarios: string[];
  /** Only these strategies (within each scenario's own list); all when undefined. */
  strategies?: string[];
  out: string;
  sizes: FaultSizes;
}

export const USAGE = `usage: npm run faults -- [options]
  --scenario NAME[,NAME]   only these scenarios (${SCENARIOS.map((s) => s.name).join(', ')})
  --strategy NAME[,NAME]   only these strategies, within each scenario's list
  --sell N                 units sold while a holder is frozen (default ${DEFAULT_SIZES.sell})
  --out DIR                where <stamp>.{md,json,html} go (default faults/results)
  --help                   this text`;

const list = (values: string[] | undefined): string[] | undefined =>
  values === undefined ? undefined : values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

/** Every flag `npm run faults` accepts, as node:util's parseArgs takes them. */
export const FAULT_FLAGS = {
  scenario: { type: 'string', multiple: true },
  strategy: { type: 'string', multiple: true },
  sell: { type: 'string' },
  out: { type: 'string', default: 'faults/results' },
  ...HELP_FLAG,
} as const;

export function parseFaultArgs(argv: string[]): FaultOptions {
  const { values } = parseFlags(argv, FAULT_FLAGS);
  const names = list(values.scenario);
  const unknown = (names ?? []).filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) throw new UsageError(`unknown scenario: ${unknown.join(', ')}`);
  const sell = values.sell === undefined ? DEFAULT_SIZES.sell : Number(values.sell);
  // the stock must outlast the sales, the probes and the holder's own unit
  if (!Number.isInteger(sell) || sell < 1 || sell > DEFAULT_SIZES.initial / 2) throw new UsageError(`--sell must be a whole number from 1 to ${DEFAULT_SIZES.initial / 2}`);
  return {
    scenarios: SCENARIOS.map((s) => s.name).filter((n) => names === undefined || names.includes(n)),
    ...(values.strategy !== undefined && { strategies: list(values.strategy) }),
    out: values.out,
    sizes: { ...DEFAULT_SIZES, sell },
  };
}
