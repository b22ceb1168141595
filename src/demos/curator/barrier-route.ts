// GET /test/zk/barrier (DistributedDoubleBarrier): each request enters, waits until `members`
// have entered, leaves, and answers once every member has left.
import type { Express } from 'express';
import { changingGetRoute } from '../../http/methods.js';
import { intParam, rejectUnknownParams } from '../../http/params.js';
import { ZkDoubleBarrier } from '../../locks/zk/barrier.js';
import { waitMsParam, type RecipeContext } from './context.js';

/** A barrier of three, when the request does not say. */
const DEFAULT_MEMBERS = 3;
const MAX_MEMBERS = 100;

/** Where the barriers live: one per member count, since all members of one must agree on it. */
export const barriersDir = (root: string): string => `${root}/barrier`;

export function barrierRoute(app: Express, { session, limits, instance }: RecipeContext): void {
  // One object per barrier, so its waiters in this instance share their watches.
  const barriers = new Map<number, ZkDoubleBarrier>();

  changingGetRoute(app, '/test/zk/barrier', async (req, res) => {
    rejectUnknownParams(req.query, ['members', 'waitMs']);
    const members = intParam(req.query, 'members', 1, MAX_MEMBERS, DEFAULT_MEMBERS);
    const waitMs = waitMsParam(req.query, limits);
    let barrier = barriers.get(members);
    if (!barrier) barriers.set(members, (barrier = new ZkDoubleBarrier(session, `${barriersDir(session.root)}/members-${members}`, members)));
    const t0 = Date.now();
    const member = await barrier.enter(waitMs);
    const enteredAfterMs = Date.now() - t0;
    await barrier.leave(member, waitMs);
    res.json({ ok: true, barrier: `members-${members}`, members, enteredAfterMs, leftAfterMs: Date.now() - t0, instance });
  });
}
