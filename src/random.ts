// The project's one random source: a seeded PRNG (mulberry32), so the same seed gives the same fault
// schedule and the same partition shapes, or Math.random behind the same interface where nothing
// needs repeating.
export interface Random {
  /** [0, 1) */
  next(): number;
  /** a whole number in [min, max] */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A Random drawing from `next`, a source of numbers in [0, 1). */
function randomFrom(next: () => number): Random {
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
  };
}

export function seeded(seed: number): Random {
  let a = seed >>> 0;
  return randomFrom(() => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  });
}

/** Math.random as a Random: for draws nobody repeats. */
export const unseeded: Random = randomFrom(() => Math.random());

/** A copy of `items` in random order (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], r: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
