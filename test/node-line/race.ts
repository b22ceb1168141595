// One cluster on the Node line this script runs on (its instances run on the same binary:
// process.execPath), and one oversell race through nginx: every 200 a unit really deducted, none
// oversold, every request answered. Prints "N passed, N failed" and exits non-zero on a failure.
// Run by .ci/node-line with a second Node line's binary.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopLoad } from '../../src/load/fire.js';
import { race } from '../../src/load/race.js';
import { freeClusterConfig, startCluster } from '../../src/cluster/cluster.js';

const STRATEGY = 'redis-lua-decr';
const INITIAL = 300;
const REQUESTS = 400;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-node-line-'));
const cluster = await startCluster({ config: await freeClusterConfig(dir, 3), instanceEnv: { LOG_LEVEL: 'warn' } });
let failed = 0;
try {
  const r = await race({
    target: cluster.info.nginx,
    stores: cluster.info,
    strategy: STRATEGY,
    store: 'redis',
    initial: INITIAL,
    requests: REQUESTS,
    connections: 50,
    maxSeconds: 60,
  });
  const answered = r.ok + r.soldOut + r.otherStatus;
  const exact = r.ok === r.deducted && r.oversold === 0 && r.noAnswer === 0 && answered === REQUESTS && r.ok === INITIAL;
  console.log(
    `node ${process.version}: race ${STRATEGY} through nginx, ${REQUESTS} requests for ${INITIAL} units → ${r.ok} sold, ${r.deducted} deducted, ${r.oversold} oversold, ${r.soldOut} sold out, ${r.otherStatus} other, ${r.noAnswer} unanswered (${r.seconds.toFixed(1)} s): ${exact ? 'exact' : 'NOT EXACT'}`,
  );
  if (!exact) failed++;
} catch (err) {
  console.log(`node ${process.version}: the race failed: ${err instanceof Error ? err.message : String(err)}`);
  failed++;
} finally {
  stopLoad();
  await cluster.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`${1 - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
