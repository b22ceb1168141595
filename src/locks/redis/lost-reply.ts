// An acquire whose reply never arrived (a command timeout, a dropped connection) may still have been
// applied: the lock then has an owner who does not know it holds it, and a lock without expiry would
// never be released. The owner gives it back with an owner-checked release, which changes nothing
// when the acquire never landed.
import { DependencyDownError } from '../../dependency.js';
import { sleep } from '../../time.js';

/** Between release attempts while the server is unreachable. */
const RETRY_MS = 200;
/** Past this, a lease would have expired long ago, and a SETNX lock is the course's known flaw. */
const GIVE_UP_MS = 60_000;

/**
 * Runs `attempt`; when it fails because the server could not answer, starts `release` in the
 * background and retries it until the server answers (any answer: released, or "not ours").
 * Sent on the same connection, the release queues behind the acquire it undoes.
 */
export async function undoIfReplyLost<T>(attempt: () => Promise<T>, release: () => Promise<unknown>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (err instanceof DependencyDownError) void releaseUntilAnswered(release);
    throw err;
  }
}

async function releaseUntilAnswered(release: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    try {
      await release();
      return;
    } catch (err) {
      if (!(err instanceof DependencyDownError)) return; // answered: "not held" is an answer too
      await sleep(RETRY_MS);
    }
  }
}
