// A race's own round trip (issue 38, item 4): rttMs is checked (a number, 0 to 50, the field named
// when refused); the links are retimed for the race and set back after it, also when it throws;
// the tour's pair says what it needs on a lab without delayed links.
import { describe, expect, it } from 'vitest';
import { TOUR, stepNeeds } from '../../live/page/tour.js';
import { withRtt, type DelayControl } from '../../live/rtt.js';
import { InputError, parseRace } from '../../live/settings.js';
import type { LiveEvent } from '../../live/shared/types.js';

const bounds = { maxRequests: 5_000, strategies: ['redis-pubsub'] };
const race = { strategy: 'redis-pubsub', units: 40, requests: 60, connections: 6, workMs: 0, ttlMs: 5_000, fenced: false, via: 'three' };

function refusal(body: unknown): InputError {
  try {
    parseRace(body, bounds);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** Links that remember every round trip they were set to. */
function fakeLinks(start: number, delayable = true): DelayControl & { set: number[] } {
  let now = start;
  const set: number[] = [];
  return {
    set,
    delayable,
    rttMs: () => now,
    async slow(ms) {
      set.push(ms);
      now = ms;
    },
  };
}

describe('rttMs in a race', () => {
  it('takes a number of ms from 0 to 50, and leaves it out when absent', () => {
    expect(parseRace({ ...race, rttMs: 2 }, bounds).rttMs).toBe(2);
    expect(parseRace({ ...race, rttMs: 0.5 }, bounds).rttMs).toBe(0.5);
    expect(parseRace({ ...race, rttMs: 0 }, bounds).rttMs).toBe(0);
    expect(parseRace(race, bounds)).not.toHaveProperty('rttMs');
  });

  it.each([51, -1, '2', null, true])('refuses %j, naming the field', (rttMs) => {
    const err = refusal({ ...race, rttMs });
    expect(err.status).toBe(400);
    expect(err.field).toBe('rttMs');
    expect(err.message).toContain('from 0 to 50');
  });
});

describe('withRtt', () => {
  it('retimes the links for the body and sets them back after, telling the pages each time', async () => {
    const links = fakeLinks(0);
    const events: LiveEvent[] = [];
    const seen = await withRtt(
      links,
      2,
      (e) => events.push(e),
      async () => links.rttMs(),
    );
    expect(seen).toBe(2);
    expect(links.set).toEqual([2, 0]);
    expect(events).toEqual([
      { type: 'rtt', rttMs: 2 },
      { type: 'rtt', rttMs: 0 },
    ]);
  });

  it('sets them back when the body throws', async () => {
    const links = fakeLinks(2);
    await expect(
      withRtt(
        links,
        0,
        () => undefined,
        async () => Promise.reject(new Error('race failed')),
      ),
    ).rejects.toThrow('race failed');
    expect(links.set).toEqual([0, 2]);
    expect(links.rttMs()).toBe(2);
  });

  it('touches nothing without a round trip asked, or when the links are there already', async () => {
    const links = fakeLinks(2);
    await withRtt(
      links,
      undefined,
      () => undefined,
      async () => undefined,
    );
    await withRtt(
      links,
      2,
      () => undefined,
      async () => undefined,
    );
    const none = fakeLinks(0, false);
    await withRtt(
      none,
      2,
      () => undefined,
      async () => undefined,
    );
    expect(links.set).toEqual([]);
    expect(none.set).toEqual([]);
  });
});

describe('the tour pair', () => {
  const pair = TOUR.filter((s) => s.settings.rttMs !== undefined);

  it('is one strategy, the same race, at 0 ms and at 2 ms', () => {
    expect(pair.map((s) => s.settings.rttMs)).toEqual([0, 2]);
    const [a, b] = pair.map(({ settings: { rttMs: _ms, ...rest } }) => rest);
    expect(a).toEqual(b);
  });

  it('needs delayed links, and only those; the cut needs the hosts topology', () => {
    const cut = TOUR.find((s) => s.settings.cutHolder)!;
    for (const s of pair) {
      expect(stepNeeds(s, { network: 'loopback', rttMs: null })).toBe('needsLinks');
      expect(stepNeeds(s, { network: 'loopback', rttMs: 0 })).toBeUndefined();
      expect(stepNeeds(s, undefined)).toBe('needsLinks');
    }
    expect(stepNeeds(cut, { network: 'loopback', rttMs: 2 })).toBe('needsHosts');
    expect(stepNeeds(cut, { network: 'hosts', rttMs: null })).toBeUndefined();
    expect(stepNeeds(TOUR[0]!, { network: 'loopback', rttMs: null })).toBeUndefined();
  });
});
