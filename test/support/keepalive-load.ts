// Clients that send deductions in a loop over keep-alive connections, as a browser or autocannon
// would, each request with its own X-Request-Id. A request whose connection closes before any
// answer is not guessed about: GET /sales, read once the load is over, says whether it sold.
//
// Why such closes happen at all: a server that stops (an instance's listener closing, an nginx
// worker retired by a reload) closes its idle keep-alive connections, and a request written into
// one at that instant is never read (nginx 1.22 has no keepalive_min_timeout to hold them open).
import { expect } from 'vitest';
import { RequestIds } from '../../faults/request-ids.js';
import type { Sales } from '../../faults/service.js';

export interface LoadAnswer {
  id: string;
  status: number;
  error?: string;
}

export class KeepAliveLoad {
  readonly answers: LoadAnswer[] = [];
  /** Ids of requests whose connection closed (or was refused) before any answer. */
  readonly unanswered: string[] = [];
  /** Unanswered requests per client loop. */
  private readonly unansweredBy: number[];
  private stopping = false;
  private readonly clients: Promise<void>[];
  private readonly ids: RequestIds;

  /**
   * `clients` loops, each sending `url` until stop(). After a request that went unanswered, a loop
   * ends (`'end'`: its server is gone, every retry would be refused) or goes on with a new connection.
   */
  constructor(url: string, clients: number, name: string, afterNoAnswer: 'end' | 'go-on') {
    this.ids = new RequestIds(name);
    this.unansweredBy = Array<number>(clients).fill(0);
    this.clients = Array.from({ length: clients }, (_, i) => this.loop(url, i, afterNoAnswer));
  }

  private async loop(url: string, client: number, afterNoAnswer: 'end' | 'go-on'): Promise<void> {
    while (!this.stopping) {
      const id = this.ids.next(`c${client}-`);
      try {
        const res = await fetch(url, { headers: { 'x-request-id': id } });
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        this.answers.push({ id, status: res.status, error: body.error });
      } catch {
        this.unanswered.push(id);
        this.unansweredBy[client] = (this.unansweredBy[client] ?? 0) + 1;
        if (afterNoAnswer === 'end') return;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.clients);
  }

  /** Unanswered requests of the client that had the most. */
  get mostUnansweredOfOneClient(): number {
    return Math.max(0, ...this.unansweredBy);
  }

  get sold(): number {
    return this.answers.filter((a) => a.status === 200).length;
  }
}

/**
 * Safety by request id: every 200 sold exactly one unit, and no other request sold anything, so
 * each connection that closed unanswered carried a request nobody applied.
 */
export function expectSalesMatchAnswers(load: KeepAliveLoad, sales: Sales): void {
  const soldIds = load.answers.filter((a) => a.status === 200).map((a) => a.id);
  const committed = Object.entries(sales).filter(([, n]) => n > 0);
  expect(committed.filter(([, n]) => n !== 1)).toEqual([]);
  expect(committed.map(([id]) => id).sort()).toEqual(soldIds.sort());
  expect(load.unanswered.filter((id) => (sales[id] ?? 0) > 0)).toEqual([]);
}
