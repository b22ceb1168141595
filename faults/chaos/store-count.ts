// The replicated Redis's stock count, read where it will stay: on the master every Sentinel names,
// with no failover under way before or after the read. A master frozen past Sentinel's down-after
// answers a read only after its thaw; deposed by then but not yet demoted, it has applied the
// scripts queued on it meanwhile (their clients were told outcome_unknown), and its resync as the
// new master's replica drops them with their sale records. A count read there holds deductions
// that no longer exist: a turn judged by it shows units "deducted" that nobody can account for.
import { sleep } from '../../src/time.js';

/** What one Sentinel says of the master: its port and flags; undefined when it did not answer. */
export type SentinelView = { port: number; flags: readonly string[] } | undefined;

export interface MasterReads {
  /** Every Sentinel's view of the master now. */
  sentinels(): Promise<readonly SentinelView[]>;
  /** The stock count on the server on `port`; rejects when it does not answer in time. */
  count(port: number): Promise<number>;
}

/** Flags of a master Sentinel may be replacing: seen down, or a failover under way. */
const failingOver = (flags: readonly string[]) => flags.some((f) => f === 's_down' || f === 'o_down' || f.startsWith('failover'));

/** The master every Sentinel that answers names, none of them seeing it down or failing it over; undefined otherwise. */
export function agreedMaster(views: readonly SentinelView[]): number | undefined {
  const answered = views.filter((v) => v !== undefined);
  const port = answered[0]?.port;
  if (port === undefined) return undefined;
  return answered.every((v) => v.port === port && !failingOver(v.flags)) ? port : undefined;
}

/** One count on the agreed master that is still the agreed master once the read is back; undefined (with why) otherwise. */
async function countOnAgreedMaster(reads: MasterReads): Promise<{ count: number } | { why: string }> {
  const before = agreedMaster(await reads.sentinels());
  if (before === undefined) return { why: 'no master all Sentinels agree on, with no failover under way' };
  let count: number;
  try {
    count = await reads.count(before);
  } catch (err) {
    return { why: `the master on ${before} did not answer: ${err instanceof Error ? err.message : String(err)}` };
  }
  const after = agreedMaster(await reads.sentinels());
  return after === before ? { count } : { why: `the master on ${before} was being replaced during the read` };
}

/**
 * The count once nothing moves: two counts on the agreed master, quietMs apart, that agree (scripts
 * a thawed master runs late land before the second). Throws after boundMs.
 */
export async function settledMasterCount(reads: MasterReads, quietMs: number, boundMs: number): Promise<number> {
  const deadline = Date.now() + boundMs;
  let last: number | undefined;
  for (;;) {
    const read = await countOnAgreedMaster(reads);
    if ('count' in read && read.count === last) return read.count;
    last = 'count' in read ? read.count : undefined;
    if (Date.now() > deadline) throw new Error(`the Redis stock count did not settle within ${boundMs} ms${'why' in read ? `: ${read.why}` : ''}`);
    await sleep(quietMs);
  }
}
