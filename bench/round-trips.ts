// `npm run round-trips`: what one deduction costs each strategy in messages to its servers, counted
// by the servers themselves, not timed: Redis commands (the main server and the five RedLock masters),
// MySQL statements, ZooKeeper requests, etcd gRPC messages and PostgreSQL statements per sale. Once alone (c=1: the protocol's own cost) and
// under contention (c=20: what waiting adds: polls, a herd woken by a release, retries). Counts do
// not depend on the machine's speed, so they explain the bench's ratios where timings cannot.
// Needs a running native cluster (npm run cluster -- up); it resets the stock.
import { parseArgs } from 'node:util';
import { fetchCatalog, selectStrategies } from '../src/load/catalog.js';
import { ROUND_TRIPS_FLAGS } from './options.js';
import { agent, messagesPerSale, rawRoundTrips } from './message-counts.js';
import { recordedCluster } from './target.js';

const fmt = (n: number) => (n === 0 ? '–' : n < 10 ? n.toFixed(1) : n.toFixed(0));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: ROUND_TRIPS_FLAGS, strict: true });
  const info = recordedCluster();
  if (!info) throw new Error('no native cluster recorded: start one with `npm run cluster -- up`');
  const base = info.instances[0] ?? info.nginx;
  const requests = Number(values.requests);
  const catalog = selectStrategies(await fetchCatalog(base), values.strategies?.split(','));
  console.log(`Each server's round trip, ${requests} calls one at a time:`);
  for (const line of await rawRoundTrips(info, requests)) console.log(`- ${line}`);
  console.log('');
  console.log(`Messages per sale, counted by the servers; ${requests} deductions on one instance (${base}), alone (c=1) and 20 at a time (c=20).\n`);
  console.log('| strategy | c | Redis | RedLock (5 masters) | MySQL | ZooKeeper | etcd | PostgreSQL | sold |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const s of catalog) {
    for (const c of [1, 20]) {
      const { sold, per } = await messagesPerSale(info, base, s.name, requests, c);
      console.log(
        `| ${s.name} | ${c} | ${fmt(per.redis)} | ${fmt(per.redlock)} | ${fmt(per.mysql)} | ${fmt(per.zookeeper)} | ${fmt(per.etcd ?? 0)} | ${fmt(per.postgres ?? 0)} | ${sold} |`,
      );
    }
  }
  agent.destroy();
}

main().catch((err: unknown) => {
  console.error(`round-trips failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
