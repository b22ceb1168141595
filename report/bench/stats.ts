// Repeated measurements reduced to what the report quotes: the median with its min–max, and
// which results cannot be told apart (their ranges overlap: a tie).

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** The repeats, in the order they were measured. */
  samples: number[];
}

export function spreadOf(samples: number[]): Spread {
  if (samples.length === 0) return { median: 0, min: 0, max: 0, samples: [] };
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, samples };
}

/** Two results whose ranges overlap are a tie: the repeats cannot tell which is faster. */
export function overlaps(a: Spread, b: Spread): boolean {
  return a.min <= b.max && b.min <= a.max;
}

export interface Standing {
  /** 1 + the number of results that are faster in every repeat (whose min exceeds this one's max). */
  rank: number;
  /** The others whose range overlaps this one's. */
  tiesWith: string[];
}

/** Ranks results by their spreads; ties are ranges that overlap, never a difference in medians alone. */
export function standings(results: { name: string; spread: Spread }[]): Map<string, Standing> {
  return new Map(
    results.map((r) => [
      r.name,
      {
        rank: 1 + results.filter((o) => o.spread.min > r.spread.max).length,
        tiesWith: results.filter((o) => o.name !== r.name && overlaps(o.spread, r.spread)).map((o) => o.name),
      },
    ]),
  );
}
