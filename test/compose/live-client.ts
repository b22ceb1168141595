// The live lab's HTTP API as its page uses it: the token from the page's own <meta>, then requests
// that change things carrying it in the x-live-token header.
import { TOKEN_HEADER } from '../../live/http.js';
import type { FaultMark, RunLog } from '../../live/shared/types.js';
import { pollUntil } from '../../src/time.js';

/** A run as GET /api/runs lists it: its log without the frames. */
export type RunListed = Pick<RunLog, 'id' | 'startedAt' | 'settings' | 'summary'>;

export class LiveClient {
  private constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  /** Opens the page (GET /) and reads the token it carries, as the page's script does. */
  static async open(url: string): Promise<LiveClient> {
    const res = await fetch(new URL('/', url));
    const html = await res.text();
    const token = /<meta name="live-token" content="([^"]+)">/.exec(html)?.[1];
    if (!res.ok || !token) throw new Error(`live: GET / answered ${res.status} without a token`);
    return new LiveClient(url, token);
  }

  async get<T>(path: string): Promise<T> {
    const res = await fetch(new URL(path, this.url));
    if (!res.ok) throw new Error(`live: GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** POSTs JSON with the token (withToken false: without it), returning status and body. */
  async post(
    path: string,
    body: unknown,
    withToken = true,
  ): Promise<{ status: number; body: { ok: boolean; error?: string; message?: string; faults?: FaultMark[] } }> {
    const res = await fetch(new URL(path, this.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(withToken && { [TOKEN_HEADER]: this.token }) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
  }

  /** The newest run once it has its summary (the race ended and the store was read), bounded. */
  async finishedRun(after: number, boundMs: number): Promise<RunListed> {
    let run: RunListed | undefined;
    await pollUntil(
      async () => {
        const { runs } = await this.get<{ runs: RunListed[] }>('/api/runs');
        run = runs.find((r) => Date.parse(r.startedAt) >= after && r.summary);
        return run !== undefined;
      },
      boundMs,
      250,
    );
    if (!run) throw new Error(`live: no finished run within ${boundMs} ms`);
    return run;
  }

  /** Every fault healed (each mark has its end), bounded. */
  async allHealed(boundMs: number): Promise<FaultMark[]> {
    let faults: FaultMark[] = [];
    await pollUntil(
      async () => {
        ({ faults } = await this.get<{ faults: FaultMark[] }>('/api/state'));
        return faults.every((f) => f.end !== undefined);
      },
      boundMs,
      250,
    );
    return faults;
  }
}
