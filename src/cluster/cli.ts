// `npm run cluster -- up|down|status`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
// Progress goes to stderr; the addresses (up) and the servers' states (status) to stdout.
import { parseFlags, runCli, UsageError } from '../cli/args.js';
import { CLUSTER_COMMANDS, CLUSTER_FLAGS, CLUSTER_USAGE } from './cli-options.js';
import { clusterDown, clusterStatus, clusterUp, printUrls } from './lifecycle.js';

const progress = (line: string) => console.error(line);
const result = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

const commands: Record<(typeof CLUSTER_COMMANDS)[number], () => Promise<number>> = {
  up: async () => (printUrls(await clusterUp(progress), result), 0),
  down: async () => ((await clusterDown(progress)) ? 0 : 1),
  status: async () => ((await clusterStatus(result)) ? 0 : 3),
};

runCli('cluster', CLUSTER_USAGE, async () => {
  const { values, positionals } = parseFlags(process.argv.slice(2), CLUSTER_FLAGS, true);
  const [cmd = '', ...extra] = positionals;
  const command = CLUSTER_COMMANDS.find((c) => c === cmd);
  if (!command || extra.length > 0) throw new UsageError(`expected one command of ${CLUSTER_COMMANDS.join(', ')}, got "${positionals.join(' ')}"`);
  // `--topology replicated` is TOPOLOGY=replicated (src/config.ts parses and checks it).
  if (values.topology !== undefined) process.env.TOPOLOGY = values.topology;
  return commands[command]();
});
