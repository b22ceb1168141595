// Overload through nginx: many more clients than the stack admits, and still every request gets an
// HTTP answer (200, 409 or a documented 503), none a reset or a closed socket, nothing oversold.
// The stack is the real one scaled down: nginx's capacity lowered, and each instance's cap with it,
// equal as in the defaults (src/config.ts), so the excess meets nginx's own 503 busy and no
// instance is ever past its cap. Without that refusal nginx would pass every client on, and the
// instances would refuse them themselves (or worse, time out nginx's connects: 502s, 504s).
import { afterAll, describe, expect, it } from 'vitest';
import { race } from '../../src/load/race.js';
import { stopLoad } from '../../src/load/fire.js';
import { answerKey } from '../../src/http/answers.js';
import { withOwnCluster } from '../support/cluster.js';
import { expectSafe, refusals } from '../support/race-checks.js';

const CAPACITY = 300;
const CLIENTS = 3_000;
const own = withOwnCluster({ nginxCapacity: CAPACITY, instanceEnv: { MAX_IN_FLIGHT: String(CAPACITY) } });
afterAll(() => stopLoad());

/**
 * Each strategy's requests stay in flight long enough that 3,000 clients, all sending at once, keep
 * far more than the capacity in flight: redis-pubsub's lock serializes the deductions; sql-update's
 * single UPDATE is too quick for that, so its requests do their work first (outside any lock).
 */
const CASES: [string, Record<string, number>][] = [
  ['redis-pubsub', {}],
  ['sql-update', { workMs: 500 }],
];

describe(`${CLIENTS} clients through nginx at a capacity of ${CAPACITY}`, () => {
  it.each(CASES)('%s: every request answered, none reset, nothing oversold', async (strategy, params) => {
    const { info } = own.current;
    const r = await race({
      target: info.nginx,
      stores: info,
      strategy,
      params,
      initial: CLIENTS,
      requests: 2 * CLIENTS,
      connections: CLIENTS,
      // two load processes of 1,500 connections each, as the ramp spreads its clients
      processes: 2,
      maxSeconds: 40,
    });
    const byNginx = r.byAnswer[answerKey(503, 'busy', 'nginx')] ?? 0;
    console.log(
      `[overload] ${strategy}: ${CLIENTS} clients, ${2 * CLIENTS} requests for ${CLIENTS} units in ${r.seconds.toFixed(1)} s: ` +
        `${r.ok} sold (${r.deducted} deducted), ${refusals(r.byAnswer)} refused (${byNginx} by nginx), ${r.soldOut} sold out, ` +
        `${r.noAnswer} unanswered ${JSON.stringify(r.noAnswerBy)}; p99 ${r.p99Ms} ms; ${JSON.stringify(r.byAnswer)}`,
    );
    expectSafe(r);
    expect(r.byAnswer[answerKey(503, 'outcome_unknown')] ?? 0).toBe(0);
    // nginx is the layer that refuses: no instance ever had more in flight than nginx admits
    expect(r.byAnswer[answerKey(503, 'busy')] ?? 0).toBe(0);
  });
});
