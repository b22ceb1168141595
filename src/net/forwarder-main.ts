// A forwarder as a supervised server process, one per delayed link:
//   node --import tsx src/net/forwarder-main.ts --listen HOST:PORT --target HOST:PORT [--rtt MS | --rtt-file PATH]
// With --rtt-file the round trip is read from the file at start and again on SIGHUP, so a running
// cluster's delay can change without a restart. SIGTERM and SIGINT close it and exit 0.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { runCli, UsageError } from '../cli/args.js';
import { startForwarder, type Forwarder } from './forwarder.js';
import { FORWARDER_USAGE, parseForwarderArgs, parseRttMs } from './forwarder-args.js';

/** The round trip in the file; a file that cannot be read is a bad --rtt-file (exit 2 at start). */
async function readRtt(path: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--rtt-file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseRttMs(text, `--rtt-file ${path}`);
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * A link's delay is the wire's, not the CPU's: on a busy machine a forwarder that waits its turn
 * behind the servers it delays holds every chunk late. Where allowed (root, CAP_SYS_NICE) it runs
 * ahead of them; elsewhere at the usual priority. Its only busy wait is the last 0.2 ms before an
 * instant (delay-scheduler.ts), so it cannot starve them.
 */
const LINK_NICE = -10;

function raisePriority(): void {
  try {
    os.setPriority(LINK_NICE);
  } catch {
    // not allowed: the usual priority
  }
}

async function main(): Promise<number> {
  const args = parseForwarderArgs(process.argv.slice(2));
  raisePriority();
  const { rttFile } = args;
  // Signals are handled from the first moment: a supervisor may stop or re-time the link while it
  // starts, and SIGHUP's default action would kill it.
  const stop = new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  let forwarder: Forwarder | undefined;
  let rereadAfterStart = false;
  const reread = (): void => {
    if (rttFile === undefined) {
      console.error(`forwarder: no --rtt-file, rtt stays ${args.rttMs} ms`);
      return;
    }
    const running = forwarder;
    if (!running) {
      rereadAfterStart = true;
      return;
    }
    readRtt(rttFile).then(
      (ms) => {
        running.setRtt(ms);
        console.log(`rtt ${ms} ms`);
      },
      // A bad file keeps the round trip in force: the link stays up.
      (err: unknown) => console.error(`forwarder: kept rtt ${running.rttMs} ms: ${err instanceof Error ? err.message : String(err)}`),
    );
  };
  process.on('SIGHUP', reread);

  const rttMs = rttFile === undefined ? args.rttMs : await readRtt(rttFile);
  forwarder = await startForwarder({ listen: args.listen, target: args.target, rttMs });
  console.log(`forwarder ${hostPort(args.listen.host, forwarder.port)} -> ${hostPort(args.target.host, args.target.port)} rtt ${rttMs} ms`);
  if (rereadAfterStart) reread();

  await stop;
  await forwarder.close();
  return 0;
}

runCli('forwarder', FORWARDER_USAGE, main);
