// The guided tour: one click per step, each a race with the settings that show one lesson.
import type { LabState, RaceSettings } from '../shared/types.js';
import type { Key } from './i18n.js';

export interface TourStep {
  title: Key;
  text: Key;
  settings: RaceSettings;
  /** a fault the step puts on during its race, ms after it starts */
  fault?: { action: 'kill-redlock'; afterMs: number; ms: number };
}

const base = { units: 100, requests: 200, connections: 50, workMs: 5, ttlMs: 5_000, fenced: false } as const;

const HOLDER_CUT = {
  strategy: 'redis-owned',
  via: 'three',
  units: 30,
  requests: 45,
  connections: 10,
  workMs: 20,
  ttlMs: 1_000,
  cutHolder: { from: 'redis', workMs: 3_000, ms: 20_000 },
} as const satisfies Partial<RaceSettings>;

const LINKS_RACE = {
  strategy: 'redis-pubsub',
  via: 'three',
  units: 40,
  requests: 60,
  connections: 6,
  workMs: 0,
  ttlMs: 5_000,
} as const satisfies Partial<RaceSettings>;

export const TOUR: readonly TourStep[] = [
  step('tour1Title', 'tour1Text', { strategy: 'none', via: 'one' }),
  step('tour2Title', 'tour2Text', { strategy: 'mutex', via: 'one' }),
  step('tour3Title', 'tour3Text', { strategy: 'mutex', via: 'three' }),
  // The course's Redis series, in its order (§2.1 → §2.9).
  step('tour4Title', 'tour4Text', {
    strategy: 'redis-setnx',
    via: 'three',
    connections: 20,
    requests: 150,
    freezeHolder: { point: 'after-acquire', ms: 3_000 },
  }),
  step('tour5Title', 'tour5Text', {
    strategy: 'redis-setnx-expire',
    via: 'three',
    // Long against any hold, even on a loaded machine, and short against the 3 s freeze: what the
    // lanes show is the lease that never started. At 300 ms a slow hold after the thaw expired
    // under its holder and oversold (seen once in CI).
    ttlMs: 1_000,
    connections: 20,
    requests: 150,
    freezeHolder: { point: 'after-setnx', ms: 3_000 },
  }),
  step('tour6Title', 'tour6Text', { strategy: 'redis-setnx-ex', via: 'three', workMs: 100, ttlMs: 50, requests: 120, connections: 30 }),
  step('tour7Title', 'tour7Text', {
    strategy: 'redis-owned-get-del',
    via: 'three',
    workMs: 100,
    ttlMs: 300,
    units: 30,
    requests: 45,
    connections: 20,
    freezeHolder: { point: 'before-del', ms: 1_500 },
  }),
  step('tour8Title', 'tour8Text', {
    strategy: 'redis-owned',
    via: 'three',
    workMs: 100,
    ttlMs: 300,
    units: 30,
    requests: 45,
    connections: 20,
    freezeHolder: { point: 'before-del', ms: 1_500 },
  }),
  step('tour9Title', 'tour9Text', { strategy: 'redis-reentrant', via: 'three', connections: 20 }),
  step('tour10Title', 'tour10Text', { strategy: 'redis-watchdog', via: 'three', workMs: 400, ttlMs: 150, units: 8, requests: 12, connections: 6 }),
  step('tour11Title', 'tour11Text', {
    strategy: 'redis-owned',
    via: 'three',
    workMs: 20,
    ttlMs: 300,
    connections: 20,
    freezeHolder: { point: 'before-write', ms: 2_000 },
  }),
  step('tour12Title', 'tour12Text', {
    strategy: 'redis-owned',
    via: 'three',
    workMs: 20,
    ttlMs: 300,
    connections: 20,
    fenced: true,
    freezeHolder: { point: 'before-write', ms: 2_000 },
  }),
  { ...step('tour13Title', 'tour13Text', { strategy: 'redlock', via: 'three', connections: 20 }), fault: { action: 'kill-redlock', afterMs: 500, ms: 8_000 } },
  step('tour14Title', 'tour14Text', { strategy: 'zk-watch', via: 'three', connections: 20, requests: 150 }),
  // The same race behind the process line: holds in runs per instance (at most MAX_HANDOFF_STREAK),
  // each pass with a token of its own, so fenced stays exact.
  step('tourLineTitle', 'tourLineText', { strategy: 'zk-watch+line', via: 'three', connections: 20, requests: 150, fenced: true }),
  // A cluster with delayed links only: one exact lock raced at 0 ms, then at 2 ms. redis-pubsub's
  // holds read and write MySQL (two round trips inside each), and its hand-off is a release published
  // through Redis to a sleeping waiter: a gap between one hold and the next.
  step('tourRtt0Title', 'tourRtt0Text', { ...LINKS_RACE, rttMs: 0 }),
  step('tourRtt2Title', 'tourRtt2Text', { ...LINKS_RACE, rttMs: 2 }),
  // The hosts topology only: the first holder cut from Redis (not from MySQL) while it holds, its
  // work (3 s) past its lease (1 s); the others sell meanwhile. Then the same fenced.
  step('tour15Title', 'tour15Text', HOLDER_CUT),
  step('tour16Title', 'tour16Text', { ...HOLDER_CUT, fenced: true }),
  // The incident gallery's clearest case (docs/incidents.md), on the library itself: redis-semaphore's
  // Mutex with its holder frozen past its lease, as in the package's issues #9 and #24.
  step('tourIncidentTitle', 'tourIncidentText', {
    strategy: 'lib-redis-semaphore',
    via: 'three',
    workMs: 20,
    ttlMs: 300,
    connections: 20,
    freezeHolder: { point: 'before-write', ms: 2_000 },
  }),
];

/**
 * What a step needs that this lab lacks, as the words that say so (undefined: it runs): cutting a
 * link needs the hosts topology, a round trip of its own a cluster with delayed links.
 */
export function stepNeeds(s: TourStep, lab: Pick<LabState, 'network' | 'rttMs'> | undefined): 'needsHosts' | 'needsLinks' | undefined {
  if (s.settings.cutHolder && lab?.network !== 'hosts') return 'needsHosts';
  if (s.settings.rttMs !== undefined && (lab?.rttMs ?? null) === null) return 'needsLinks';
  return undefined;
}

/** A step: its title and text, and the base settings with `own` over them. */
function step(title: Key, text: Key, own: Partial<RaceSettings> & Pick<RaceSettings, 'strategy' | 'via'>): TourStep {
  return { title, text, settings: { ...base, ...own } };
}
