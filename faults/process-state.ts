// Whether an instance has stopped itself (the service's pause=... hooks SIGSTOP the process), read
// from /proc, and the signals that end the pause. Only pids of servers this lab started come here.
import { processState } from '../src/cluster/processes.js';
import { pollUntil } from '../src/time.js';

export const isStopped = (pid: number): boolean => processState(pid) === 'T';

/**
 * Resolves with the first of `pids` found stopped, or undefined after timeoutMs; for a request sent
 * through nginx, whose instance the lab does not choose.
 */
export async function waitAnyStopped(pids: readonly number[], timeoutMs: number): Promise<number | undefined> {
  let found: number | undefined;
  await pollUntil(
    () => {
      found = pids.find(isStopped);
      return found !== undefined;
    },
    timeoutMs,
    5,
  );
  return found;
}

/** Lets a stopped process run again; false if it is gone. */
export function resume(pid: number): boolean {
  try {
    process.kill(pid, 'SIGCONT');
    return true;
  } catch {
    return false;
  }
}
