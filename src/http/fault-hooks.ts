// The fault lab's pause points. A request asks its own process to stop (SIGSTOP) at an exact point
// of the deduction, so the lab can build a failure by sequencing it rather than by racing: it sees
// the process stopped, does what the scenario needs meanwhile, then resumes (SIGCONT) or kills it.
import type { FaultHooks } from '../strategies/strategy.js';
import type { PausePoint } from './params.js';

function stopThisProcess(): void {
  // Synchronous: nothing of this process runs again until SIGCONT, as in a long GC pause.
  process.kill(process.pid, 'SIGSTOP');
}

export function faultHooks(pause: PausePoint | undefined): FaultHooks | undefined {
  if (pause === 'after-acquire') return { afterAcquire: stopThisProcess };
  if (pause === 'before-write') return { beforeWrite: stopThisProcess };
  if (pause === undefined) return undefined;
  // One of a strategy's own points: the strategy calls `at` at each of them, and only this one stops.
  return {
    at: (point) => {
      if (point === pause) stopThisProcess();
    },
  };
}
