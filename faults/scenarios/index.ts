// Every scenario, in the order the lab runs them. A new scenario is one module exporting a
// Scenario, added to this list.
import type { Scenario } from '../scenario.js';
import { courseFlaws } from './course-flaws.js';
import { dependencyStop } from './dependency-stop.js';
import { etcdLease } from './etcd-lease.js';
import { fairDeadWaiter } from './fair-dead-waiter.js';
import { holderCrash } from './holder-crash.js';
import { holderPause } from './holder-pause.js';
import { lostReply } from './lost-reply.js';
import { nginxCut } from './nginx-cut.js';
import { nginxRetry } from './nginx-retry.js';
import { partition } from './partition.js';
import { pgSession } from './pg-session.js';
import { redisFailover } from './redis-failover.js';
import { redlockClock } from './redlock-clock.js';
import { redlockRestart } from './redlock-restart.js';
import { redisSplitBrain } from './split-brain.js';
import { zkLeaderLoss } from './zk-leader-loss.js';
import { zkLeaderPartition } from './zk-leader-partition.js';
import { zkSessionExpiry } from './zk-session-expiry.js';

export const SCENARIOS: readonly Scenario[] = [
  holderCrash,
  holderPause,
  zkSessionExpiry,
  nginxRetry,
  dependencyStop,
  lostReply,
  redisFailover,
  redlockRestart,
  zkLeaderLoss,
  courseFlaws,
  redlockClock,
  fairDeadWaiter,
  partition,
  nginxCut,
  zkLeaderPartition,
  redisSplitBrain,
  etcdLease,
  pgSession,
];

export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
