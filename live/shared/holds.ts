// Which holds overlap another on the same lock: the picture of a lock that failed. A correct lock's
// holds never overlap (each hold ends before its release is sent and begins after its grant came).

import type { Hold } from './types.js';

/** Indexes of the holds that overlap at least one other. */
export function overlapping(holds: readonly Hold[]): Set<number> {
  const order = holds.map((_h, i) => i).sort((a, b) => (holds[a] as Hold).start - (holds[b] as Hold).start);
  const marked = new Set<number>();
  let open = -1; // the hold seen so far that ends last
  for (const i of order) {
    const h = holds[i] as Hold;
    if (open >= 0 && h.start < (holds[open] as Hold).end) {
      marked.add(i);
      marked.add(open);
    }
    if (open < 0 || h.end > (holds[open] as Hold).end) open = i;
  }
  return marked;
}
