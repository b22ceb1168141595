// Every ZooKeeper recipe keeps the count exact on three instances behind nginx.
import { describe, expect, it } from 'vitest';
import { race } from '../bench/race.js';
import { sharedCluster } from './support/cluster.js';

const cluster = sharedCluster();

function raceThroughNginx(strategy: string, requests: number, initial: number) {
  return race({ target: cluster.nginx, stores: cluster, strategy, initial, requests, connections: 100 });
}

describe.each(['zk-watch', 'zk-reentrant', 'zk-ephemeral'])('%s on three instances behind nginx', (strategy) => {
  it('sells exactly 5000 of 5000 units to 5100 requests and ends at 0', async () => {
    const r = await raceThroughNginx(strategy, 5100, 5000);
    console.log(`[zk] ${strategy} 5100 requests: ${r.rps.toFixed(0)} req/s, p99 ${r.p99Ms} ms`);
    expect(r.byStatus).toEqual({ 200: 5000, 409: 100 });
    expect(r.noAnswer).toBe(0);
    expect(r.left).toBe(0);
    expect(r.oversold).toBe(0);
  });
});

// zk-sequential has every waiter list the children every retryMs (the herd effect zk-watch avoids):
// about 70 req/s here, so the full 5100-request run would take over a minute. It races a smaller
// stock with the same 100 connections, still more requests than units.
describe('zk-sequential on three instances behind nginx', () => {
  it('sells exactly 300 of 300 units to 350 requests and ends at 0', async () => {
    const r = await raceThroughNginx('zk-sequential', 350, 300);
    console.log(`[zk] zk-sequential 350 requests: ${r.rps.toFixed(0)} req/s, p99 ${r.p99Ms} ms`);
    expect(r.byStatus).toEqual({ 200: 300, 409: 50 });
    expect(r.noAnswer).toBe(0);
    expect(r.left).toBe(0);
    expect(r.oversold).toBe(0);
  });
});
