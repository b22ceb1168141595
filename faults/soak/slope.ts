// A resource that keeps growing: the least-squares slope of its samples, per minute.

export interface Point {
  /** ms since the run's start */
  t: number;
  v: number;
}

/** Least-squares slope in units per minute; 0 with fewer than two distinct times. */
export function slopePerMinute(points: readonly Point[]): number {
  const n = points.length;
  // Stryker disable next-line ConditionalExpression: with fewer than two points den is 0 and the last line returns 0 anyway; this only says so up front
  if (n < 2) return 0;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  // Stryker disable next-line ArithmeticOperator: mv cancels out (Σ(t − mt) = 0), so any mean of v gives the same slope; centring v only keeps the products small
  const mv = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60_000;
}
