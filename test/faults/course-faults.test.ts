// The course's time and line faults in the lab, on a private cluster with the fault hooks on:
// RedLock under a clock jump on its masters and a split vote (course §2.9), and Redisson's fair
// lock with waiters that die in line (§2.10.2). Each case sequences its own steps (see the
// scenarios); here the flaw must show, and the figures are printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import type { FaultRow } from '../../faults/row.js';
import type { FaultContext } from '../../faults/scenario.js';
import { deadWaiterCase } from '../../faults/scenarios/fair-dead-waiter.js';
import { JUMPS, jumpCase, splitCase } from '../../faults/scenarios/redlock-clock.js';
import { STAY_IN_LINE_MS } from '../../src/locks/redis/redisson/fair.js';
import { withOwnCluster } from '../support/cluster.js';
import { removeTree } from '../../src/paths.js';

const own = withOwnCluster({ instances: 3, instanceEnv: { ...LAB_INSTANCE_ENV } });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-course-faults-'));
afterAll(() => removeTree(workDir));

const ctx = (): FaultContext => ({ cluster: own.current, sizes: { initial: 30, sell: 5, inFlight: 3 }, wants: () => true, log: () => undefined, workDir });
const figures = (r: FaultRow) => ({
  variant: r.variant,
  sold: r.sold,
  deducted: r.deducted,
  oversold: r.oversold,
  answers: r.byRole,
  details: r.details,
  facts: r.facts,
});

describe('RedLock and time (course §2.9)', () => {
  it('a clock jump (PEXPIRE 1 standing in) on enough of A’s masters gives B a majority while A is within its validity: two holders, oversold', async () => {
    for (const v of JUMPS) {
      const r = await jumpCase(ctx(), v);
      console.log(
        `[redlock-clock] ${v.name}: masters ${r.facts.votes}, holders ${r.facts.holders}, sold ${r.sold}, deducted ${r.deducted}, oversold ${r.oversold}`,
      );
      expect(r.asExpected, JSON.stringify(figures(r))).toBe(true);
      expect(r.facts.holders, v.name).toBe(v.expectDoubleGrant ? 2 : 1);
      expect(r.oversold, v.name).toBe(v.expectDoubleGrant ? 1 : 0);
    }
  });

  it('a split vote (2, 2, 1 of 5): nobody wins retrying in lockstep; with full jitter one does', async () => {
    const off = await splitCase(ctx(), false);
    const on = await splitCase(ctx(), true);
    console.log(`[redlock-split] jitter off: ${off.details.at(-1)}; jitter on: ${on.details.at(-1)} (bound ${on.recoverBoundMs} ms)`);
    expect(off.facts.winner, JSON.stringify(figures(off))).toBe('none');
    expect(on.facts.winner, JSON.stringify(figures(on))).not.toBe('none');
    expect(on.recoverMs!).toBeLessThanOrEqual(on.recoverBoundMs!);
  });
});

describe('Redisson’s fair lock: waiters whose instance dies in line (course §2.10.2)', () => {
  it('the next waiter waits out the dead waiters’ time in line; with none dead it is served at the release', async () => {
    const stalls: number[] = [];
    for (const dead of [0, 1, 2]) {
      const r = await deadWaiterCase(ctx(), dead);
      stalls.push(Number(r.facts.stallMs));
      expect(r.asExpected, JSON.stringify(figures(r))).toBe(true);
      expect(r.oversold).toBe(0);
    }
    console.log(
      `[fair-dead-waiter] the next waiter's wait after the release, for 0, 1, 2 dead waiters ahead: ${JSON.stringify(stalls)} ms (time in line ${STAY_IN_LINE_MS} ms)`,
    );
    expect(stalls[0]!).toBeLessThan(1_000);
    // each dead waiter ahead costs at least 2/3 of its time in line (it asked again at most a third of it before its death)
    expect(stalls[1]!).toBeGreaterThanOrEqual(STAY_IN_LINE_MS * (2 / 3) - 100);
    expect(stalls[2]!).toBeGreaterThanOrEqual(STAY_IN_LINE_MS * (2 / 3) - 100);
  });
});
