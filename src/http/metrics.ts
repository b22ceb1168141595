// Answers counted by kind, for GET /metrics (Prometheus text format). Expected refusals (a 503
// lock_timeout under contention, thousands a second) are counted here instead of logged one by one.

export interface AnswerLabels {
  /** The route's path pattern ("/check/lock"); omitted when no route matched (a body-parser error). */
  route?: string;
  /** The deduction's strategy, once its parameters were valid. */
  strategy?: string;
  status: number;
  /** The body's `error`; omitted for a 200. */
  error?: string;
}

const METRIC = 'stocklab_answers_total';

/** A Prometheus label value: backslash, double quote and newline escaped. */
function labelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelSet({ route, strategy, status, error }: AnswerLabels): string {
  const pairs: [string, string | undefined][] = [['route', route], ['strategy', strategy], ['status', String(status)], ['error', error]];
  return pairs
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k}="${labelValue(v)}"`)
    .join(',');
}

/**
 * Counters of one instance since it started. The label values come from closed sets (route
 * patterns, strategy names, error codes), so the number of series stays bounded.
 */
export class AnswerCounts {
  private readonly counts = new Map<string, number>();

  add(labels: AnswerLabels): void {
    const key = labelSet(labels);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Prometheus text exposition format, version 0.0.4. */
  text(): string {
    const lines = [`# HELP ${METRIC} Answers sent by this instance, by route, strategy, status and error code.`, `# TYPE ${METRIC} counter`];
    for (const key of [...this.counts.keys()].sort()) lines.push(`${METRIC}{${key}} ${this.counts.get(key) ?? 0}`);
    return lines.join('\n') + '\n';
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
