// How long each strategy's soak turn lasts, and how long a soak must be to judge growth. The first
// round of turns is the soak's warm-up (verdict.ts), so turns are sized for that round to take at
// most a third of the run, leaving the rest to judge; within bounds, so a turn is long enough to
// settle at its rate and a long run goes round several times.
import { minJudgedMs } from './verdict.js';

export const TURN_MS = { min: 5_000, max: 20_000 } as const;
/** A turn's time beyond its load, about: the store's count read, settled, before and after it. */
export const TURN_OVERHEAD_MS = 1_500;
const WARM_UP_SHARE = 1 / 3;

/** Each strategy's turn in a soak of `minutes` over `strategies` strategies. */
export function soakTurnMs(minutes: number, strategies: number): number {
  const share = (minutes * 60_000 * WARM_UP_SHARE) / Math.max(1, strategies) - TURN_OVERHEAD_MS;
  return Math.round(Math.min(TURN_MS.max, Math.max(TURN_MS.min, share)));
}

/** The first round's length: every strategy's turn and its overhead. */
export const roundMs = (strategies: number, turnMs: number, overheadMs = TURN_OVERHEAD_MS): number => strategies * (turnMs + overheadMs);

/**
 * The least --minutes, in half minutes, that leaves minJudgedMs(windowMs) (or `judgedMs`, when the
 * caller set how growth is judged) after the first round: turns sized by soakTurnMs, or `turnMs`
 * when the caller fixed it.
 */
export function leastSoakMinutes(strategies: number, windowMs: number, opts: { turnMs?: number; overheadMs?: number; judgedMs?: number } = {}): number {
  const judged = opts.judgedMs ?? minJudgedMs(windowMs);
  for (let halves = 1; ; halves++) {
    const minutes = halves / 2;
    const turn = opts.turnMs ?? soakTurnMs(minutes, strategies);
    if (minutes * 60_000 - roundMs(strategies, turn, opts.overheadMs) >= judged) return minutes;
  }
}
