// Every ZooKeeper recipe keeps the count exact on three instances behind nginx; how many requests
// it refuses at the default waitMs is asserted apart, against a bound.
import { describe, it } from 'vitest';
import { race } from '../../src/load/race.js';
import { sharedCluster } from '../support/cluster.js';
import { expectExactRace } from '../support/race-checks.js';

const cluster = sharedCluster();

function raceThroughNginx(strategy: string, requests: number, initial: number) {
  return race({ target: cluster.nginx, stores: cluster, strategy, initial, requests, connections: 100, maxSeconds: 90 });
}

// Refusals allowed at the 10 s default waitMs. zk-watch and zk-reentrant queue their waiters in
// order (each watches the node before its own): fair, none expected, 2 %. zk-ephemeral is a spin
// lock: every waiter races all the others for one node every retryMs, so an unlucky one can lose
// every round until its waitMs, and the slower the machine the more often (0.2–2.9 % seen here
// at 110–42 req/s, 7.9 % at 27 req/s with a benchmark running beside the suite): 25 %.
// The `+line` rows (one node per instance, grants passed in memory) race at size; the course's
// rows (one node per request) race small, enough to queue 100 connections' nodes at once.
describe.each([
  ['zk-watch+line', 1100, 1000, 0.02],
  ['zk-reentrant+line', 330, 300, 0.02],
  ['zk-watch', 110, 100, 0.02],
  ['zk-reentrant', 110, 100, 0.02],
  ['zk-ephemeral', 220, 200, 0.25],
] as const)('%s on three instances behind nginx', (strategy, requests, units, maxRefused) => {
  it(`${requests} requests for ${units} units: no unit sold twice, refusals within the bound`, async () => {
    expectExactRace(await raceThroughNginx(strategy, requests, units), strategy, maxRefused);
  });
});

// zk-sequential has every waiter list the children every retryMs (the herd effect zk-watch avoids):
// a few dozen req/s here, so it races a smaller stock with the same 100 connections, still more
// requests than units. Its queue is fair, but the herd slows every hand-off, so the last of the 100
// queued waiters wait about 100 hand-offs, which on a loaded machine reaches the default waitMs
// (6.1 % timed out in one such run): the bound is 20 %, and the figure is printed.
describe('zk-sequential on three instances behind nginx', () => {
  it('sells exactly 100 of 100 units to 110 requests and ends at 0', async () => {
    expectExactRace(await raceThroughNginx('zk-sequential', 110, 100), 'zk-sequential', 0.2);
  });
});
