// How many of a pool's new connections open at once. A burst of requests on a cold pool would
// otherwise open every connection together: each PostgreSQL handshake forks a backend and runs
// SCRAM's 4096 PBKDF2 rounds on both sides, so on a busy machine the last of 40 at once can outlast
// a connect bound that one alone meets with room to spare, and a healthy server is called down.
// HikariCP opens its connections one at a time for the same reason.

/** A handshake that failed this way says the server is unreachable: those queued behind it fail with it. */
export type SaysUnreachable = (err: unknown) => boolean;

interface Queued {
  go: () => void;
  fail: (err: unknown) => void;
}

export class HandshakeGate {
  private opening = 0;
  private readonly queued: Queued[] = [];
  /** Handshakes that have completed: one that completed while another was failing proves the server answers. */
  private opened = 0;

  constructor(
    private readonly atOnce: number,
    private readonly saysUnreachable: SaysUnreachable,
  ) {}

  /**
   * Runs `handshake` once fewer than `atOnce` are running (its own timeout starts then). One that
   * fails as unreachable fails every handshake queued behind it with the same error, unstarted: a
   * server that does not answer is judged once per wave, within one connect bound, not once per
   * queued connection. Unless another handshake opened while this one waited: then the server
   * answers and this one was only slow (a backend that took long to fork on a busy machine), and
   * those queued still try, each within its own bound.
   */
  async through(handshake: () => Promise<void>): Promise<void> {
    if (this.opening >= this.atOnce) await new Promise<void>((go, fail) => this.queued.push({ go, fail }));
    this.opening++;
    const openedBefore = this.opened;
    try {
      await handshake();
      this.opened++;
    } catch (err) {
      if (this.saysUnreachable(err) && this.opened === openedBefore) for (const q of this.queued.splice(0)) q.fail(err);
      throw err;
    } finally {
      this.opening--;
      this.queued.shift()?.go();
    }
  }

  /** Handshakes waiting for their turn (for tests). */
  get waiting(): number {
    return this.queued.length;
  }
}
