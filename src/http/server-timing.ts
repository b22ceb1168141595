// What one deduction's lock did, for the answer's Server-Timing header: how long it waited for the
// lock, how long it held it, how long the write took, and when the hold began on this machine's
// monotonic clock (shared by every process on it), so a watcher on the same machine can lay the
// holds of several instances on one time axis. `live/` draws them.

import type { HoldRecord } from '../locks/hold-record.js';
import { monotonicMs } from '../time.js';

const ms = (n: number) => Math.max(0, n).toFixed(2);

/** The Server-Timing value, or undefined when the deduction took no lock. */
export function serverTiming(r: HoldRecord): string | undefined {
  if (r.grantedAt === undefined) return undefined;
  const released = r.releasedAt ?? monotonicMs();
  const parts = [`wait;dur=${ms(r.grantedAt - r.startedAt)}`, `hold;dur=${ms(released - r.grantedAt)}`];
  if (r.writeStartedAt !== undefined) parts.push(`write;dur=${ms((r.writeEndedAt ?? released) - r.writeStartedAt)}`);
  parts.push(`granted;desc="${r.grantedAt.toFixed(3)}"`);
  if (r.token !== undefined) parts.push(`token;desc="${r.token}"`);
  return parts.join(', ');
}
