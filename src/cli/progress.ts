// Progress of a long command (lab, bench, faults) on stderr: every line starts with where the run
// is in its plan, the time elapsed and the time left ([37/222 · 4:10 · ~6:05 left]). On a terminal
// a status line under them is redrawn each second; piped or in CI there are only plain lines.
import { PlanClock, phaseSummary, type PhaseTime, type PlannedStep } from './plan-clock.js';

export type Log = (line: string) => void;

interface Stream {
  isTTY?: boolean;
  write(chunk: string): unknown;
}

const CLEAR_LINE = '\r\x1b[2K';

export class Progress {
  private readonly clock: PlanClock;
  private current = '';
  private note = '';
  private timer: NodeJS.Timeout | undefined;
  /** After the summary: plain lines only, no status line any more. */
  private ended = false;

  /**
   * `log`: where finished lines go (stderr when omitted). `live`: redraw a status line (default:
   * only when writing to stderr that is a terminal, outside CI).
   */
  constructor(
    private readonly log?: Log,
    private readonly stream: Stream = process.stderr,
    private readonly live = log === undefined && stream.isTTY === true && !process.env.CI,
    now: () => number = Date.now,
  ) {
    this.clock = new PlanClock([], now);
  }

  /** Adds steps to the plan (a lab adds the bench's once the cluster is up and the catalog read). */
  add(steps: readonly PlannedStep[]): void {
    this.clock.add(steps);
  }

  replan(key: string, seconds: number): void {
    this.clock.replan(key, seconds);
  }

  estimate(key: string): number {
    return this.clock.estimate(key);
  }

  /** Runs one planned step, timed. */
  async step<T>(key: string, label: string, work: () => Promise<T>): Promise<T> {
    this.clock.begin(key);
    this.current = label;
    this.note = '';
    this.redraw();
    try {
      return await work();
    } finally {
      this.clock.end(key);
      this.current = '';
      this.note = '';
    }
  }

  /** A line for the record, with the plan's position. */
  line = (text: string): void => {
    this.emit(`${this.clock.prefix()} ${text}`);
  };

  /** Something only worth seeing now (a race's answers so far): the status line, or a plain line. */
  transient = (text: string): void => {
    if (!this.live) {
      this.line(text);
      return;
    }
    this.note = text;
    this.redraw();
  };

  /** The time each phase's finished steps took, and the rest as `other`. */
  phases(): PhaseTime[] {
    return this.clock.phases();
  }

  /** "where the time went", per phase. */
  summary(title: string): void {
    this.stop();
    this.ended = true;
    this.emit(`${title}: where the time went`);
    for (const l of phaseSummary(this.clock.phases())) this.emit(l);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.live) this.stream.write(CLEAR_LINE);
  }

  private emit(text: string): void {
    if (this.log) {
      this.log(text);
      return;
    }
    this.stream.write(this.live && !this.ended ? `${CLEAR_LINE}${text}\n` : `${text}\n`);
    this.redraw();
  }

  private redraw(): void {
    if (!this.live || this.ended) return;
    if (!this.timer) {
      this.timer = setInterval(() => this.redraw(), 1_000);
      this.timer.unref();
    }
    const status = `${this.clock.prefix()} ${this.current}${this.note ? ` · ${this.note}` : ''}`;
    // one screen line, or the next redraw clears only its last part (a pty may report 0 columns)
    const columns = (this.stream as { columns?: number }).columns;
    const width = columns !== undefined && columns > 0 ? columns : 120;
    this.stream.write(`${CLEAR_LINE}${status.slice(0, width - 1)}`);
  }
}

/** Runs `work` as a step of the progress plan when there is one, plainly otherwise (a test calling the same code). */
export const stepOf = <T>(progress: Progress | undefined, key: string, label: string, work: () => Promise<T>): Promise<T> =>
  progress ? progress.step(key, label, work) : work();
