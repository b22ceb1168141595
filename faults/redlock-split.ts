// A split vote on the five RedLock masters, driven by the lab itself: three contenders run the
// RedLock round (SET key value NX PX on every master, held with a majority, else give back the
// partial votes and try again), each reaching the masters in its own order, as requests on
// different network paths do. A round in lockstep (no jitter: identical retry timers) repeats the
// same arrival order on each master, so the same minorities every time; a random pause before
// each retry (the full jitter RedlockLock waits) lets one contender reach a majority first.
import type { Redis } from 'ioredis';
import { sleep } from '../src/time.js';

const releaseIfMine = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

export interface SplitVoteOptions {
  key: string;
  ttlMs: number;
  retryMs: number;
  /** Random pause in [0, retryMs) before each retry; false: every contender retries after exactly retryMs. */
  jitter: boolean;
  /** Give up after this long without a winner. */
  boundMs: number;
}

export interface SplitVote {
  /** The contender that got a majority, undefined when none did within the bound. */
  winner?: string;
  /** Attempts in all (every contender's), and ms from the first attempt to the win or the bound. */
  attempts: number;
  ms: number;
  /** Votes each contender got in the first round: the split. */
  firstRound: Record<string, number>;
}

const CONTENDERS = ['A', 'B', 'C'] as const;
/** Where each contender's round starts: A reaches masters 0 and 1 first, B 2 and 3, C 4. */
const FIRST_MASTER: readonly number[] = [0, 2, 4];

/** One SET NX PX; true when this master voted for `value`. */
async function vote(master: Redis, key: string, value: string, ttlMs: number): Promise<boolean> {
  return (await master.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
}

async function giveBack(masters: readonly Redis[], key: string, value: string): Promise<void> {
  await Promise.all(masters.map((m) => m.eval(releaseIfMine, 1, key, value)));
}

/** Every contender's round, one master at a time and contenders interleaved: the arrival order is fixed. */
async function lockstepRound(masters: readonly Redis[], o: SplitVoteOptions, round: number): Promise<Map<string, number>> {
  const votes = new Map<string, number>(CONTENDERS.map((c) => [c, 0]));
  for (let step = 0; step < masters.length; step++) {
    for (const [k, c] of CONTENDERS.entries()) {
      const master = masters[((FIRST_MASTER[k] ?? 0) + step) % masters.length]!;
      if (await vote(master, o.key, `${c}-${round}`, o.ttlMs)) votes.set(c, votes.get(c)! + 1);
    }
  }
  return votes;
}

/** One contender's round on its own: its masters in its order, one after the other. */
async function ownRound(masters: readonly Redis[], o: SplitVoteOptions, k: number, value: string): Promise<number> {
  let n = 0;
  for (let step = 0; step < masters.length; step++) if (await vote(masters[((FIRST_MASTER[k] ?? 0) + step) % masters.length]!, o.key, value, o.ttlMs)) n++;
  return n;
}

export async function splitVote(masters: readonly Redis[], o: SplitVoteOptions): Promise<SplitVote> {
  const quorum = Math.floor(masters.length / 2) + 1;
  const t0 = Date.now();
  const deadline = t0 + o.boundMs;
  // The first round: all three at once, lockstep.
  const first = await lockstepRound(masters, o, 0);
  let attempts = CONTENDERS.length;
  const firstRound = Object.fromEntries(first);
  const firstWinner = [...first].find(([, n]) => n >= quorum)?.[0];
  if (firstWinner) return { winner: firstWinner, attempts, ms: Date.now() - t0, firstRound };
  await Promise.all(CONTENDERS.map((c) => giveBack(masters, o.key, `${c}-0`)));
  if (!o.jitter) {
    for (let round = 1; Date.now() < deadline; round++) {
      await sleep(o.retryMs);
      const votes = await lockstepRound(masters, o, round);
      attempts += CONTENDERS.length;
      const winner = [...votes].find(([, n]) => n >= quorum)?.[0];
      if (winner) return { winner, attempts, ms: Date.now() - t0, firstRound };
      await Promise.all(CONTENDERS.map((c) => giveBack(masters, o.key, `${c}-${round}`)));
    }
    return { attempts, ms: Date.now() - t0, firstRound };
  }
  let winner: string | undefined;
  await Promise.all(
    CONTENDERS.map(async (c, k) => {
      for (let round = 1; winner === undefined && Date.now() < deadline; round++) {
        await sleep(Math.random() * o.retryMs);
        if (winner !== undefined) return;
        const value = `${c}-${round}`;
        attempts++;
        if ((await ownRound(masters, o, k, value)) >= quorum) {
          winner ??= c;
          return;
        }
        await giveBack(masters, o.key, value);
      }
    }),
  );
  return { ...(winner !== undefined && { winner }), attempts, ms: Date.now() - t0, firstRound };
}
