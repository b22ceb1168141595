// `npm run cluster -- up|down|status`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
import { CLUSTER_COMMANDS, CLUSTER_FLAGS, CLUSTER_USAGE } from './cli-options.js';
import { clusterDown, clusterStatus, clusterUp } from './lifecycle.js';

const say = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

const commands: Record<(typeof CLUSTER_COMMANDS)[number], () => Promise<number>> = {
  up: async () => (await clusterUp(say), 0),
  down: async () => ((await clusterDown(say)) ? 0 : 1),
  status: async () => ((await clusterStatus(say)) ? 0 : 3),
};
const [cmd = '', ...flags] = process.argv.slice(2);
const command = CLUSTER_COMMANDS.find((c) => c === cmd);
const run = command && commands[command];
// `--topology replicated` is TOPOLOGY=replicated (src/config.ts parses and checks it).
const topology = flags[0] === `--${CLUSTER_FLAGS[0]}` && flags.length === 2 ? flags[1] : undefined;
if (!run || (flags.length > 0 && topology === undefined)) {
  console.error(CLUSTER_USAGE);
  process.exit(2);
}
if (topology !== undefined) process.env.TOPOLOGY = topology;
run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster ${cmd} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
