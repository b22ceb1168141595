// nginx-retry: an instance writes a deduction and dies before it answers. nginx's default
// (proxy_next_upstream error timeout) resends the GET to the next instance, which deducts again;
// the project's config (proxy_next_upstream off for /check/lock) answers 502 instead.
//
// Built deterministically, without racing the kill against the answer: the request (redis-owned,
// a Redis lock guarding the MySQL write) freezes its instance at pause=before-write; the lab pauses
// Redis writes (CLIENT PAUSE WRITE), lets the instance run, waits until MySQL shows the unit gone,
// and kills it. Its lock release is a Redis write, so it, and the answer after it, cannot have left
// the instance: the kill always lands between the write and the answer. An attempt still counts as
// conclusive only if both were observed (the unit gone, no answer yet at the kill).
import { Redis } from 'ioredis';
import { unitsLeft } from '../../src/cluster/stores.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Case, type Target, type Verdict } from '../case.js';
import { instances, releaseStopped, type Instance } from '../cluster-ops.js';
import { outcomeKey, type Sent } from '../client.js';
import { startDefaultNginx } from '../default-nginx.js';
import { FREEZE_TIMEOUT_MS, holderText } from '../holder.js';
import { resume, waitAnyStopped } from '../process-state.js';
import { isSafe, type FaultRow, type Measured } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

const STRATEGY = 'redis-owned';
const INITIAL = 10;
const MAX_ATTEMPTS = 3;
/** Redis lifts the pause by itself after this, should the lab die holding it. */
const REDIS_PAUSE_MS = 10_000;
const REQUEST = { pause: 'before-write', ttlMs: 1_000, waitMs: 8_000 };

type Front = 'project nginx' | 'default nginx';

interface Attempt {
  conclusive: boolean;
  client: Sent;
  /** Instances a resent copy of the request froze on (and was let go): nginx's retries. */
  resentTo: string[];
  note: string;
}

/** Resumes every instance the resent request freezes, until the client has its answer. */
async function releaseResends(all: readonly Instance[], answer: Promise<Sent>): Promise<{ client: Sent; resentTo: string[] }> {
  let client: Sent | undefined;
  void answer.then((s) => (client = s));
  const resentTo: string[] = [];
  await pollUntil(
    () => {
      resentTo.push(...releaseStopped(all));
      return client !== undefined;
    },
    60_000,
    5,
  );
  return { client: await answer, resentTo };
}

async function attempt(ctx: FaultContext, c: Case, front: Target): Promise<Attempt> {
  const { info } = ctx.cluster;
  const all = instances(ctx.cluster);
  const before = await unitsLeft(info, 'mysql');
  let answered = false;
  const answer = c.send(front, 'client', REQUEST);
  void answer.then(() => (answered = true));
  const pid = await waitAnyStopped(
    all.flatMap((i) => (i.server.pid === undefined ? [] : [i.server.pid])),
    FREEZE_TIMEOUT_MS,
  );
  const writer = all.find((i) => i.server.pid === pid);
  if (pid === undefined || !writer) return { conclusive: false, client: await answer, resentTo: [], note: 'no instance stopped at the hook' };
  const redis = new Redis(info.redis, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // a failed command throws where it is awaited
  let wrote = false;
  let answeredBeforeKill = false;
  try {
    await redis.call('CLIENT', 'PAUSE', String(REDIS_PAUSE_MS), 'WRITE');
    resume(pid);
    wrote = await pollUntil(async () => (await unitsLeft(info, 'mysql')) === before - 1, 5_000, 5);
    answeredBeforeKill = answered;
    await writer.server.kill();
  } finally {
    await redis.call('CLIENT', 'UNPAUSE').catch(() => undefined);
    redis.disconnect();
  }
  const { client, resentTo } = await releaseResends(all, answer);
  await writer.server.start();
  const conclusive = wrote && !answeredBeforeKill;
  const why = !wrote
    ? 'the write never showed in MySQL'
    : answeredBeforeKill
      ? 'the answer got out before the kill'
      : `${writer.via} wrote, then was killed before answering`;
  return { conclusive, client, resentTo, note: why };
}

function verdictFor(frontName: Front, last: Attempt, attempts: number, notes: string[]): Verdict {
  const clientKey = outcomeKey(last.client.outcome);
  const details = [
    `attempts: ${attempts} (${last.conclusive ? 'conclusive' : 'none conclusive'}): ${notes.join('; ')}`,
    holderText(last.client, 'client'),
    `resent to: ${last.resentTo.length > 0 ? last.resentTo.join(', ') : 'none'}`,
  ];
  const facts = { attempts, conclusive: last.conclusive, resentTo: last.resentTo.join(',') };
  if (frontName === 'project nginx') {
    return {
      facts,
      expected: 'client 502 (outcome unknown), reconciled as 1 sale via /sales; no double deduction',
      details,
      holds: (m: Measured) => last.conclusive && isSafe(m) && clientKey === '502' && m.doubleDeductions === 0 && last.resentTo.length === 0,
    };
  }
  return {
    facts,
    expected: 'nginx resends the deduction: double deductions ≥ 1',
    details,
    holds: (m: Measured) => last.conclusive && (m.doubleDeductions ?? 0) >= 1 && last.resentTo.length >= 1,
  };
}

async function retryCase(ctx: FaultContext, frontName: Front, front: Target): Promise<FaultRow> {
  const key = { scenario: 'nginx-retry', strategy: STRATEGY, variant: frontName, store: 'mysql' as const };
  return runCase(ctx, key, INITIAL, async (c) => {
    const notes: string[] = [];
    let last: Attempt | undefined;
    for (let k = 1; k <= MAX_ATTEMPTS; k++) {
      last = await attempt(ctx, c, front);
      notes.push(`#${k}: ${last.note}`);
      if (last.conclusive) return verdictFor(frontName, last, k, notes);
    }
    if (!last) throw new Error('no attempt made');
    return verdictFor(frontName, last, MAX_ATTEMPTS, notes);
  });
}

export const nginxRetry: Scenario = {
  name: 'nginx-retry',
  description:
    `A deduction through nginx whose instance writes, then dies before answering. ${STRATEGY} with store=mysql and pause=before-write: ` +
    'the lab pauses Redis writes (CLIENT PAUSE WRITE), resumes the instance, waits until MySQL shows the unit gone, and kills the instance; ' +
    'its lock release (a Redis write), and so its answer, cannot have left it. Compared: the project nginx (proxy_next_upstream off for /check/lock) ' +
    "and a second nginx with that one line removed (nginx's default: resend on error). A resent copy freezes at its hook too and is let go. " +
    `Up to ${MAX_ATTEMPTS} attempts; an attempt is conclusive when the unit was gone and no answer had come before the kill. Killed instances are restarted.`,
  async run(ctx) {
    if (!ctx.wants(STRATEGY)) return [];
    const rows: FaultRow[] = [await retryCase(ctx, 'project nginx', { base: ctx.cluster.info.nginx, via: 'nginx' })];
    const ports = ctx.cluster.servers.instances.map((s) => s.port);
    const second = await startDefaultNginx(ctx.workDir, ports);
    try {
      rows.push(await retryCase(ctx, 'default nginx', { base: second.base, via: 'nginx-default' }));
    } finally {
      await second.server.stop();
    }
    return rows;
  },
};
