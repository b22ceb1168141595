// The guided tour: one click per step, each a race with the settings that show one lesson.
import type { RaceSettings } from '../shared/types.js';
import type { Key } from './i18n.js';

export interface TourStep {
  title: Key;
  text: Key;
  settings: RaceSettings;
  /** a fault the step puts on during its race, ms after it starts */
  fault?: { action: 'kill-redlock'; afterMs: number; ms: number };
}

const base = { units: 100, requests: 200, connections: 50, workMs: 5, ttlMs: 5_000, fenced: false } as const;

export const TOUR: readonly TourStep[] = [
  { title: 'tour1Title', text: 'tour1Text', settings: { ...base, strategy: 'none', via: 'one' } },
  { title: 'tour2Title', text: 'tour2Text', settings: { ...base, strategy: 'mutex', via: 'one' } },
  { title: 'tour3Title', text: 'tour3Text', settings: { ...base, strategy: 'mutex', via: 'three' } },
  { title: 'tour4Title', text: 'tour4Text', settings: { ...base, strategy: 'redis-setnx-ex', via: 'three', workMs: 100, ttlMs: 50, requests: 120, connections: 30 } },
  {
    title: 'tour5Title',
    text: 'tour5Text',
    settings: { ...base, strategy: 'redis-owned', via: 'three', workMs: 20, ttlMs: 300, connections: 20, freezeHolder: { point: 'before-write', ms: 2_000 } },
  },
  {
    title: 'tour6Title',
    text: 'tour6Text',
    settings: { ...base, strategy: 'redis-owned', via: 'three', workMs: 20, ttlMs: 300, connections: 20, fenced: true, freezeHolder: { point: 'before-write', ms: 2_000 } },
  },
  { title: 'tour7Title', text: 'tour7Text', settings: { ...base, strategy: 'redlock', via: 'three', connections: 20 }, fault: { action: 'kill-redlock', afterMs: 500, ms: 8_000 } },
  { title: 'tour8Title', text: 'tour8Text', settings: { ...base, strategy: 'zk-sequential', via: 'three', connections: 20, requests: 150 } },
];
