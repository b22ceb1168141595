// Safety and liveness, asserted apart. Safety is exact and never depends on luck: every unit a
// client was told it bought left the store exactly once, every answer is one the service
// documents, nothing went unanswered, and a "sold out" was true. Liveness (how many requests were
// refused with a 503) gets a stated bound, and its figure is printed whether or not it holds.
import { expect } from 'vitest';
import { answerKey, isAllowedAnswer, isRefusal } from '../../src/http/answers.js';
import type { RaceResult } from '../../src/load/race.js';

/** Answers counted by key, as race() counts them: for tests that keep every answer (checkMany). */
export function tally(answers: readonly { status: number; error?: string }[]): Record<string, number> {
  const byAnswer: Record<string, number> = {};
  for (const a of answers) {
    const key = answerKey(a.status, a.status === 200 ? undefined : a.error);
    byAnswer[key] = (byAnswer[key] ?? 0) + 1;
  }
  return byAnswer;
}

/** Answers outside the documented list, by key ("500 internal", …). */
export function unexpectedAnswers(byAnswer: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(byAnswer).filter(([key]) => !isAllowedAnswer(key)));
}

/** Every answer one the service documents (src/http/answers.ts), for tests that keep each answer. */
export function expectDocumented(answers: readonly { status: number; error?: string }[]): void {
  expect(unexpectedAnswers(tally(answers))).toEqual({});
}

/** 503s the client may retry (lock_timeout, retries_exhausted, …): a liveness figure. */
export function refusals(byAnswer: Record<string, number>): number {
  return Object.entries(byAnswer).reduce((n, [key, count]) => n + (isRefusal(key) ? count : 0), 0);
}

const answered = (byAnswer: Record<string, number>): number => Object.values(byAnswer).reduce((a, b) => a + b, 0);

/**
 * Safety, exactly: units deducted = 200 answers, nothing oversold, every answer documented, every
 * request answered, and units left only if no one was told "sold out" (the stock only falls
 * during a race, so a 409 means it was empty).
 */
export function expectSafe(r: RaceResult): void {
  expect({
    deducted: r.deducted,
    oversold: r.oversold,
    unexpected: unexpectedAnswers(r.byAnswer),
    unanswered: r.noAnswer,
    truncated: r.truncated,
    leftAfterSoldOut: r.soldOut > 0 ? r.left : 0,
  }).toEqual({ deducted: r.ok, oversold: 0, unexpected: {}, unanswered: 0, truncated: false, leftAfterSoldOut: 0 });
}

/**
 * Liveness within a stated bound: at most `maxShare` of the answers are refusals. Prints the
 * figure, so a run that passes still shows how close it came.
 */
export function expectLive(r: { byAnswer: Record<string, number>; rps?: number; p99Ms?: number }, label: string, maxShare: number): void {
  const refused = refusals(r.byAnswer);
  const total = answered(r.byAnswer);
  const share = total > 0 ? refused / total : 0;
  const speed = r.rps === undefined ? '' : `, ${Math.round(r.rps)} req/s, p99 ${r.p99Ms} ms`;
  console.log(`[liveness] ${label}: ${refused} of ${total} refused (${(share * 100).toFixed(1)} %, bound ${+(maxShare * 100).toFixed(1)} %)${speed}`);
  expect(share, `${label}: refused ${JSON.stringify(r.byAnswer)}`).toBeLessThanOrEqual(maxShare);
}

/**
 * A race with more requests than units on a safe strategy: safe, live within `maxShare`, and, when
 * the refusals are fewer than the extra requests, every unit sold (then some request must have
 * been told "sold out", which safety says is true).
 */
export function expectExactRace(r: RaceResult, label: string, maxShare = 0.02): void {
  expectSafe(r);
  expectLive(r, label, maxShare);
  if (answered(r.byAnswer) - refusals(r.byAnswer) > r.initial) expect(r.left, `${label}: units left`).toBe(0);
}
