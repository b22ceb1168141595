// What one deduction's lock did, as it went: its wait, hold and write on the machine's monotonic
// clock, and the grant's fencing token. The route turns it into the Server-Timing header.
import { monotonicMs } from '../time.js';

/**
 * Filled in by a lock strategy's deduction as it goes. The hold runs from the moment the work
 * inside the lock starts (after the grant arrived) to the moment it ends (before the release is
 * sent), so two holds of a correct lock never overlap, even measured in two processes.
 */
export class HoldRecord {
  readonly startedAt = monotonicMs();
  grantedAt?: number;
  releasedAt?: number;
  writeStartedAt?: number;
  writeEndedAt?: number;
  /** The grant's fencing token, for locks that issue one. */
  token?: bigint;
}
