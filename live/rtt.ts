// A race's own round trip (RaceSettings.rttMs): the cluster's delaying forwarders retimed for the
// race and set back after it, however it ends, with an event each time so the page shows what the
// links add now.
import type { Network } from '../src/net/network.js';
import type { LiveEvent } from './shared/types.js';

/** The part of the network a race's round trip needs. */
export type DelayControl = Pick<Network, 'delayable' | 'rttMs' | 'slow'>;

/** Retimes the links to `ms` unless they are there already, and says so to the pages. */
export async function retime(links: DelayControl, ms: number, emit: (e: LiveEvent) => void): Promise<void> {
  if (links.rttMs() === ms) return;
  await links.slow(ms);
  emit({ type: 'rtt', rttMs: ms });
}

/**
 * `body` with the links at `ms` (undefined: as they are), then back to what they were, also when it
 * throws: nothing stays delayed. A failure to set them back is thrown after the body's own result.
 */
export async function withRtt<T>(links: DelayControl, ms: number | undefined, emit: (e: LiveEvent) => void, body: () => Promise<T>): Promise<T> {
  if (!links.delayable || ms === undefined) return body();
  const before = links.rttMs();
  try {
    await retime(links, ms, emit);
    return await body();
  } finally {
    await retime(links, before, emit);
  }
}
