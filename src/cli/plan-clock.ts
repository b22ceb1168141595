// Where a long command is in its plan, and how long the rest should take. The plan is a list of
// steps with estimated seconds; as steps finish, each phase's estimates are scaled by how long that
// phase's finished steps really took (a phase with none finished yet by the ratio of all finished
// steps), so the estimate converges on the machine's own pace. Pure: the clock is passed in.

export interface PlannedStep {
  /** Unique within the plan. */
  key: string;
  /** What kind of step (warm-up, window, race, …): the unit of correction and of the final summary. */
  phase: string;
  /** Estimated seconds, before correction. */
  seconds: number;
  /** Its pace says nothing of the other phases' (starting a cluster, installing a package). */
  ownPace?: boolean;
}

interface StepState extends PlannedStep {
  startedAt?: number;
  tookSeconds?: number;
}

export interface PhaseTime {
  phase: string;
  steps: number;
  seconds: number;
}

export interface ClockStatus {
  /** Steps finished, of all. */
  done: number;
  total: number;
  elapsedSeconds: number;
  leftSeconds: number;
}

export class PlanClock {
  private readonly steps: StepState[] = [];
  private readonly byKey = new Map<string, StepState>();
  private readonly startedAt: number;

  constructor(
    steps: readonly PlannedStep[],
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.add(steps);
  }

  /** More steps at the end of the plan (a lab adds the bench's once it knows the strategies). */
  add(steps: readonly PlannedStep[]): void {
    for (const step of steps) {
      if (this.byKey.has(step.key)) throw new Error(`plan step "${step.key}" is already planned`);
      const s = { ...step };
      this.steps.push(s);
      this.byKey.set(s.key, s);
    }
  }

  private step(key: string): StepState {
    const s = this.byKey.get(key);
    if (!s) throw new Error(`no step "${key}" in the plan`);
    return s;
  }

  begin(key: string): void {
    this.step(key).startedAt = this.now();
  }

  end(key: string): void {
    const s = this.step(key);
    s.tookSeconds = (this.now() - (s.startedAt ?? this.now())) / 1000;
  }

  /** A better estimate for a step not yet run (a race sized from measured goodput). */
  replan(key: string, seconds: number): void {
    this.step(key).seconds = seconds;
  }

  /**
   * Actual over planned seconds of the finished steps of `phase`; when none of it finished, of all
   * the finished steps whose pace speaks for others (not ownPace); 1 when nothing did.
   */
  ratio(phase: string): number {
    const of = (steps: StepState[]) => {
      const finished = steps.filter((s) => s.tookSeconds !== undefined && s.seconds > 0);
      const planned = finished.reduce((n, s) => n + s.seconds, 0);
      return planned > 0 ? finished.reduce((n, s) => n + (s.tookSeconds ?? 0), 0) / planned : undefined;
    };
    return of(this.steps.filter((s) => s.phase === phase)) ?? of(this.steps.filter((s) => !s.ownPace)) ?? 1;
  }

  /** The step's estimate, corrected by its phase's pace. */
  estimate(key: string): number {
    const s = this.step(key);
    return s.seconds * this.ratio(s.phase);
  }

  status(): ClockStatus {
    const t = this.now();
    let left = 0;
    for (const s of this.steps) {
      if (s.tookSeconds !== undefined) continue;
      const est = this.estimate(s.key);
      // a step running longer than its estimate has at least a little left
      left += s.startedAt === undefined ? est : Math.max(est - (t - s.startedAt) / 1000, 0);
    }
    return {
      done: this.steps.filter((s) => s.tookSeconds !== undefined).length,
      total: this.steps.length,
      elapsedSeconds: (t - this.startedAt) / 1000,
      leftSeconds: left,
    };
  }

  /** `[37/222 · 4:10 · ~6:05 left]` */
  prefix(): string {
    const s = this.status();
    return `[${s.done}/${s.total} · ${clockText(s.elapsedSeconds)} · ~${clockText(s.leftSeconds)} left]`;
  }

  /** Seconds spent per phase, in plan order, then the time outside any step. */
  phases(): PhaseTime[] {
    const out = new Map<string, PhaseTime>();
    for (const s of this.steps) {
      if (s.tookSeconds === undefined) continue;
      const p = out.get(s.phase) ?? { phase: s.phase, steps: 0, seconds: 0 };
      p.steps++;
      p.seconds += s.tookSeconds;
      out.set(s.phase, p);
    }
    const inSteps = [...out.values()].reduce((n, p) => n + p.seconds, 0);
    const total = (this.now() - this.startedAt) / 1000;
    return [...out.values(), { phase: 'other', steps: 0, seconds: Math.max(total - inSteps, 0) }];
  }
}

/** m:ss, or h:mm:ss from an hour. */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** "where the time went": one line per phase, its share of the whole. */
export function phaseSummary(phases: readonly PhaseTime[]): string[] {
  const total = phases.reduce((n, p) => n + p.seconds, 0) || 1;
  return phases
    .filter((p) => p.seconds > 0 || p.steps > 0)
    .map(
      (p) =>
        `  ${p.phase.padEnd(12)} ${clockText(p.seconds).padStart(7)}  ${String(Math.round((100 * p.seconds) / total)).padStart(3)} %${p.steps > 0 ? `  (${p.steps} step${p.steps === 1 ? '' : 's'})` : ''}`,
    );
}
