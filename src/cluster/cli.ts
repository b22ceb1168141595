// `npm run cluster -- up|down|status|partition|heal`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
// Progress goes to stderr; the addresses (up) and the servers' states (status) to stdout.
import { parseFlags, runCli, UsageError } from '../cli/args.js';
import { loadClusterConfig } from '../config.js';
import { seeded } from '../random.js';
import { resolveDir } from './cluster.js';
import { CLUSTER_COMMANDS, CLUSTER_FLAGS, CLUSTER_USAGE } from './cli-options.js';
import { clusterDown, clusterStatus, clusterUp, printUrls } from './lifecycle.js';
import { groupsGrudge, healRecorded, PARTITION_SHAPES, partitionInForce, partitionRecorded, recordedLayout, serverGroup, shapeGrudge } from './partitions.js';

const progress = (line: string) => console.error(line);
const result = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

runCli('cluster', CLUSTER_USAGE, async () => {
  const { values, positionals } = parseFlags(process.argv.slice(2), CLUSTER_FLAGS, true);
  const [cmd = '', ...extra] = positionals;
  const command = CLUSTER_COMMANDS.find((c) => c === cmd);
  if (!command) throw new UsageError(`expected one command of ${CLUSTER_COMMANDS.join(', ')}, got "${positionals.join(' ')}"`);
  if (command !== 'partition' && extra.length > 0) throw new UsageError(`${command} takes no arguments, got "${extra.join(' ')}"`);
  // `--topology replicated` is TOPOLOGY=replicated (src/config.ts parses and checks it).
  if (values.topology !== undefined) process.env.TOPOLOGY = values.topology;
  const dir = resolveDir(loadClusterConfig().dir);
  switch (command) {
    case 'up':
      printUrls(await clusterUp(progress), result);
      return 0;
    case 'down':
      return (await clusterDown(progress)) ? 0 : 1;
    case 'status': {
      const ok = await clusterStatus(result);
      if (ok !== undefined && readsHosts(dir)) result(`  partition     ${await partitionInForce(dir)}`);
      return ok ? 0 : 3;
    }
    case 'heal':
      result((await healRecorded(dir)).text);
      return 0;
    case 'partition': {
      const layout = recordedLayout(dir);
      if (values.shape !== undefined) {
        const shape = PARTITION_SHAPES.find((s) => s === values.shape);
        if (!shape) throw new UsageError(`--shape must be one of ${PARTITION_SHAPES.join(', ')}, got "${values.shape}"`);
        if (extra.length !== 1) throw new UsageError('partition --shape takes one comma list of servers');
        const seed = values.seed === undefined ? Date.now() : Number(values.seed);
        if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${values.seed}"`);
        const grudge = shapeGrudge(shape, serverGroup(layout, extra[0] as string), seeded(seed).next);
        result((await partitionRecorded(dir, grudge)).text);
        return 0;
      }
      if (extra.length !== 2) throw new UsageError('partition takes two groups of servers (e.g. partition app-0 redis), or --shape NAME NODES');
      const grudge = groupsGrudge(serverGroup(layout, extra[0] as string), serverGroup(layout, extra[1] as string), values['one-way'] === true);
      result((await partitionRecorded(dir, grudge)).text);
      return 0;
    }
  }
});

function readsHosts(dir: string): boolean {
  try {
    recordedLayout(dir);
    return true;
  } catch {
    return false;
  }
}
