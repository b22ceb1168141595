// `npm run cluster -- up|down|status`: the native cluster as long-lived background processes.
// Exit codes: 0 success (status: everything up); 1 failure; 2 usage; 3 status: not (fully) running.
import { clusterDown, clusterStatus, clusterUp } from './lifecycle.js';

const say = (line: string) => console.log(line);
// A closed stdout (`… | head`) must not kill `up` half-way through starting servers.
process.stdout.on('error', () => undefined);

const commands: Record<string, () => Promise<number>> = {
  up: async () => (await clusterUp(say), 0),
  down: async () => ((await clusterDown(say)) ? 0 : 1),
  status: async () => ((await clusterStatus(say)) ? 0 : 3),
};
const cmd = process.argv[2] ?? '';
const run = commands[cmd];
if (!run) {
  console.error('usage: npm run cluster -- up|down|status');
  process.exit(2);
}
run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster ${cmd} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
