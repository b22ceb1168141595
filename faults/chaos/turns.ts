// How a chaos run shares its time among the strategies: whole rounds, one turn per strategy a round.
// Each turn's length is worked out again before it starts, from the time left and the turns still
// owed, so what happens between turns (the store's count read, a paused holder's late answer)
// shortens every later turn a little instead of leaving the last strategies in the plan without one.

/** A turn's load, at most; and the shortest worth taking (less is left unused at the run's end). */
export const TURN_MS = { max: 20_000, least: 2_000 } as const;
/** A turn's time beyond its load, about: the store's count read before and after it, the last answers. */
export const TURN_OVERHEAD_MS = 2_000;

/** Turns planned for the run: as many whole rounds as keep each turn within TURN_MS.max, one at least. */
export function plannedTurns(seconds: number, strategies: number): number {
  if (strategies <= 0) return 0;
  const rounds = Math.max(1, Math.ceil((seconds * 1_000) / (strategies * (TURN_MS.max + TURN_OVERHEAD_MS))));
  return rounds * strategies;
}

/**
 * The next turn's load: the time left shared among the turns still owed (once they are all taken,
 * the time left goes round again), less each turn's overhead (`overheadMs`: as measured so far, if
 * more than planned), from TURN_MS.least to TURN_MS.max. A run too short for every strategy's
 * least turn gives the first ones theirs (the checker marks the rest not judged). Undefined when
 * not even TURN_MS.least is left.
 */
export function nextTurnMs(leftMs: number, turnsOwed: number, overheadMs = TURN_OVERHEAD_MS): number | undefined {
  const overhead = Math.max(TURN_OVERHEAD_MS, overheadMs);
  if (leftMs - overhead < TURN_MS.least) return undefined;
  const share = leftMs / Math.max(1, turnsOwed) - overhead;
  return Math.floor(Math.min(TURN_MS.max, Math.max(TURN_MS.least, share)));
}

/** The time between loads so far, per turn: what the next turns should leave for theirs. */
export function overheadSoFar(elapsedMs: number, loadMs: number, turns: number): number {
  return turns === 0 ? TURN_OVERHEAD_MS : Math.max(0, elapsedMs - loadMs) / turns;
}
