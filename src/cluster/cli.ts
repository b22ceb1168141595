// `npm run cluster -- up|down|status|partition|heal|rtt`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
// Progress goes to stderr; the addresses (up) and the servers' states (status) to stdout.
import { parseFlags, runCli, UsageError } from '../cli/args.js';
import { loadClusterConfig } from './layout.js';
import { seeded } from '../random.js';
import { resolveDir } from './cluster.js';
import { CLUSTER_COMMANDS, CLUSTER_FLAGS, CLUSTER_USAGE } from './cli-options.js';
import { parseRttMs } from '../net/forwarder-args.js';
import { clusterDown, clusterStatus, clusterUp, printUrls } from './lifecycle.js';
import { describeGrudge, groups, PARTITION_SHAPES, shapeGrudge } from '../net/grudge.js';
import { recordedLayout, recordedNetwork, serverGroup } from './partitions.js';

const progress = (line: string) => console.error(line);
const result = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

runCli('cluster', CLUSTER_USAGE, async () => {
  const { values, positionals } = parseFlags(process.argv.slice(2), CLUSTER_FLAGS, true);
  const [cmd = '', ...extra] = positionals;
  const command = CLUSTER_COMMANDS.find((c) => c === cmd);
  if (!command) throw new UsageError(`expected one command of ${CLUSTER_COMMANDS.join(', ')}, got "${positionals.join(' ')}"`);
  if (command !== 'partition' && command !== 'rtt' && extra.length > 0) throw new UsageError(`${command} takes no arguments, got "${extra.join(' ')}"`);
  if (values.rtt !== undefined && command !== 'up') throw new UsageError(`--rtt goes with up (a running cluster is retimed with: rtt MS)`);
  if (values.link !== undefined && command !== 'rtt') throw new UsageError('--link goes with rtt MS');
  // `--topology replicated` is TOPOLOGY=replicated (src/config.ts parses and checks it).
  if (values.topology !== undefined) process.env.TOPOLOGY = values.topology;
  // `--rtt 2` is CLUSTER_RTT_MS=2, checked here to name the flag.
  if (values.rtt !== undefined) process.env.CLUSTER_RTT_MS = String(parseRttMs(values.rtt, '--rtt'));
  const config = loadClusterConfig();
  const dir = resolveDir(config.dir);
  switch (command) {
    case 'up':
      printUrls(await clusterUp(progress), result);
      return 0;
    case 'down':
      return (await clusterDown(progress)) ? 0 : 1;
    case 'status': {
      const ok = await clusterStatus(result);
      if (ok !== undefined && readsHosts(dir)) result(`  partition     ${describeGrudge(await recordedNetwork(config).inForce())}`);
      return ok ? 0 : 3;
    }
    case 'rtt': {
      if (extra.length !== 1) throw new UsageError('rtt takes one round trip in ms (e.g. rtt 0.5)');
      const links = values.link
        ?.split(',')
        .map((l) => l.trim())
        .filter(Boolean);
      if (links && links.length === 0) throw new UsageError('--link needs a server name (e.g. --link redlock-4)');
      await recordedNetwork(config, result).slow(parseRttMs(extra[0] as string, 'rtt'), links);
      return 0;
    }
    case 'heal':
      result((await recordedNetwork(config).heal()).text);
      return 0;
    case 'partition': {
      const layout = recordedLayout(dir);
      if (values.shape !== undefined) {
        const shape = PARTITION_SHAPES.find((s) => s === values.shape);
        if (!shape) throw new UsageError(`--shape must be one of ${PARTITION_SHAPES.join(', ')}, got "${values.shape}"`);
        if (extra.length !== 1) throw new UsageError('partition --shape takes one comma list of servers');
        const seed = values.seed === undefined ? Date.now() : Number(values.seed);
        if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${values.seed}"`);
        const grudge = shapeGrudge(shape, serverGroup(layout, extra[0] as string), seeded(seed));
        result((await recordedNetwork(config).partition(grudge)).text);
        return 0;
      }
      if (extra.length !== 2) throw new UsageError('partition takes two groups of servers (e.g. partition app-0 redis), or --shape NAME NODES');
      const grudge = groups(serverGroup(layout, extra[0] as string), serverGroup(layout, extra[1] as string), values['one-way'] === true);
      result((await recordedNetwork(config).partition(grudge)).text);
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
