// Clients that send deductions in a loop over keep-alive connections, as a browser or autocannon
// would, each request with its own X-Request-Id. A request whose connection closes before any
// answer is not guessed about: GET /sales, read once the load is over, says whether it sold.
//
// Why such closes happen at all: a server that stops (an instance's listener closing, an nginx
// worker retired by a reload) closes its idle keep-alive connections, and a request written into
// one at that instant is never read (nginx 1.22 has no keepalive_min_timeout to hold them open).
//
// Each client has one connection of its own (not a pool shared by all): a client cut off opens a
// new one, which a retired nginx worker no longer accepts, so one reload cuts a client off once at
// most, whichever connections the reload closes and whenever.
import http from 'node:http';
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
    const connection = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (!this.stopping) {
        const id = this.ids.next(`c${client}-`);
        try {
          this.answers.push(await get(connection, url, id));
        } catch {
          this.unanswered.push(id);
          this.unansweredBy[client] = (this.unansweredBy[client] ?? 0) + 1;
          if (afterNoAnswer === 'end') return;
        }
      }
    } finally {
      connection.destroy();
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

/** One GET on `connection`: its answer once a status arrived (whole body or not); rejects when the connection closed before any. */
function get(connection: http.Agent, url: string, id: string): Promise<LoadAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: connection, headers: { 'x-request-id': id } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('close', () => resolve({ id, status: res.statusCode ?? 0, error: errorOf(body) }));
    });
    req.on('error', reject);
  });
}

/** The `error` of a JSON answer, if it has one. */
function errorOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && 'error' in parsed && typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return undefined;
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
