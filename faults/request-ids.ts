// X-Request-Id values: 1–64 characters of [A-Za-z0-9._-], unique within a run, and readable in
// GET /sales ("holder-pause.redis-owned.fenced.c7.sell3").

let runCounter = 0;

/** Replaces what the header may not carry, and cuts to `max` characters. */
function sanitize(text: string, max: number): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, max);
}

export class RequestIds {
  private n = 0;
  private readonly base: string;

  constructor(...parts: string[]) {
    runCounter += 1;
    // A per-run case counter keeps two cases with the same name apart. It survives the cut (".c" + ≤ 5
    // digits), and so does the suffix (".", a role of ≤ 8 characters, a count of ≤ 5 digits): 40 + 7 + 14 ≤ 64.
    this.base = `${sanitize(parts.join('.'), 40)}.c${runCounter}`;
  }

  next(role: string): string {
    this.n += 1;
    return `${this.base}.${sanitize(role, 8)}${this.n}`;
  }
}
