// One way to declare a strategy, whatever its family: a declaration (strategy.ts) becomes the
// Strategy the route runs. A lock strategy's stores, SQL, guard and fault outcomes follow from its lock.
import type { Lease, LockWithExpiry } from '../locks/lock.js';
import { guardedDeduction } from './guarded.js';
import type { Expected, FaultOutcomes, SharedDeps, Strategy, StrategyDeclaration } from './strategy.js';

const HOLDER_CRASH = { none: 'never', lease: 'after ttlMs', session: 'after the session timeout' } as const satisfies Record<
  LockWithExpiry['expiry'],
  FaultOutcomes['holderCrash']
>;

/** What the fault lab measures of a lock strategy, as it follows from how its lock's grants end. */
export function faultOutcomes(lock: LockWithExpiry): FaultOutcomes {
  return {
    holderCrash: HOLDER_CRASH[lock.expiry],
    // Only a grant that never expires outlives its holder's pause: nobody else gets it meanwhile.
    holderPause: lock.expiry === 'none' ? 'exact' : 'oversells',
    // The store refuses a token older than one it has seen, so the paused holder's late write fails.
    ...(lock.fencing && { holderPauseFenced: 'exact' as const }),
    lostReply: lock.lostAcquire === 'released by its owner' ? 'released by its owner' : 'expires after ttlMs',
  };
}

/** The expectations in GET /strategies' order of keys, whatever order a declaration writes them in. */
function expectedOf({ oneInstance, threeInstances, workOverTtl, note }: Omit<Expected, 'faults'>, faults?: FaultOutcomes): Expected {
  return { oneInstance, threeInstances, ...(workOverTtl && { workOverTtl }), ...(note && { note }), ...(faults && { faults }) };
}

export function declareStrategy<L extends Lease>(deps: SharedDeps, declared: StrategyDeclaration<L>): Strategy {
  const { name, family, course, description } = declared;
  if (!('lock' in declared)) {
    const { stores, sql, deduct, pausePoints } = declared;
    return {
      name,
      family,
      course,
      description,
      expected: expectedOf(declared.expected),
      stores,
      ...(sql && { sql }),
      ...(pausePoints && { pausePoints }),
      deduct,
    };
  }
  const { lock } = declared;
  const faults = declared.faultLab ? faultOutcomes(declared.lock) : undefined;
  const labFacts = typeof declared.faultLab === 'object' ? declared.faultLab : undefined;
  const { acquire, release } = declared.lockSql ?? { acquire: [], release: [] };
  const { readThenWrite, readThenWriteFenced } = deps.stock.mysql.sql;
  return {
    name,
    family,
    course,
    description,
    expected: expectedOf(declared.expected, faults),
    stores: ['mysql', 'redis'],
    sql: [...acquire, ...readThenWrite, ...release],
    // Present on every lock strategy: the fault lab's pause points apply; fenced=1 needs tokens.
    ...(lock.fencing ? { guard: { fencing: lock.fencing }, sqlFenced: [...acquire, ...readThenWriteFenced[lock.fencing], ...release] } : { guard: {} }),
    ...(lock.pausePoints && { pausePoints: lock.pausePoints }),
    ...(labFacts && { faultLab: labFacts }),
    deduct: guardedDeduction(deps, declared),
  };
}

/** A family's declarations, in order, made Strategies; each lock's lease type reaches its own `answer`. */
export function declareStrategies<const Leases extends readonly Lease[]>(
  deps: SharedDeps,
  declarations: { [K in keyof Leases]: StrategyDeclaration<Leases[K]> },
): Strategy[] {
  return declarations.map((d: StrategyDeclaration<Lease>) => declareStrategy(deps, d));
}
