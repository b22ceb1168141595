// Every answer GET /check/lock may give. The service's error mapping, the tests' safety checks,
// the bench's tables and the README all read this one list: an answer not in it is a bug.

export interface AllowedAnswer {
  status: 200 | 409 | 503;
  /** The body's `error`; undefined for the 200 that sold one unit. */
  error?: string;
  /** What it tells the client, for the README and the reports. */
  meaning: string;
  /** A refusal the client may retry: counted against a strategy's liveness, never its safety. */
  refusal: boolean;
  /** Answered by the layer in front (its body names it), not by an instance. */
  layer?: 'nginx';
}

export const ALLOWED_ANSWERS: readonly AllowedAnswer[] = [
  { status: 200, meaning: 'one unit sold', refusal: false },
  { status: 409, error: 'sold_out', meaning: 'nothing left; nothing sold', refusal: false },
  { status: 503, error: 'lock_timeout', meaning: 'the lock was not acquired within waitMs; nothing sold', refusal: true },
  { status: 503, error: 'lock_lost', meaning: 'the lock was lost before the write; nothing sold', refusal: true },
  {
    status: 503,
    error: 'outcome_unknown',
    meaning: 'the write was sent but not confirmed: the unit may or may not be sold (GET /sales tells, by X-Request-Id)',
    refusal: false,
  },
  { status: 503, error: 'fenced', meaning: 'a later holder of the lock claimed the stock first (fenced=1); nothing sold', refusal: true },
  {
    status: 503,
    error: 'busy',
    meaning:
      'this instance is at capacity: its cap of deductions in flight (MAX_IN_FLIGHT), or no MySQL or PostgreSQL connection came free in time; nothing sold',
    refusal: true,
  },
  {
    status: 503,
    error: 'busy',
    layer: 'nginx',
    meaning: 'nginx is at its capacity of requests in flight; the request reached no instance and nothing was sold',
    refusal: true,
  },
  { status: 503, error: 'shutting_down', meaning: 'this instance is shutting down and did not start or finish the deduction; nothing sold', refusal: true },
  { status: 503, error: 'client_gone', meaning: 'the client left before the write; nothing sold', refusal: true },
  {
    status: 503,
    error: 'deadlock',
    meaning:
      'MySQL rolled the transaction back as a deadlock victim (sql-share-mode: two shared locks both upgrading, or another deduction beside one); nothing sold',
    refusal: true,
  },
  { status: 503, error: 'retries_exhausted', meaning: 'optimistic retries ran past waitMs; nothing sold', refusal: true },
  { status: 503, error: 'mysql_unavailable', meaning: 'MySQL could not be reached; nothing sold', refusal: true },
  { status: 503, error: 'redis_unavailable', meaning: 'Redis could not be reached; nothing sold', refusal: true },
  { status: 503, error: 'redlock_unavailable', meaning: 'no quorum of RedLock masters could be reached; nothing sold', refusal: true },
  { status: 503, error: 'zookeeper_unavailable', meaning: 'ZooKeeper could not be reached; nothing sold', refusal: true },
  { status: 503, error: 'etcd_unavailable', meaning: 'etcd could not be reached; nothing sold', refusal: true },
  { status: 503, error: 'postgres_unavailable', meaning: 'PostgreSQL could not be reached; nothing sold', refusal: true },
  { status: 503, error: 'dependency_unavailable', meaning: 'a server could not be reached; nothing sold', refusal: true },
];

/** How an answer is counted: "200", "409 sold_out", "503 lock_timeout", "503 busy (nginx)". */
export function answerKey(status: number, error?: string, layer?: string): string {
  return error ? `${status} ${error}${layer ? ` (${layer})` : ''}` : String(status);
}

/** The key of an answer from its status and body: a 200 by its status, any other by its body's `error` (and `layer`). */
export function answerKeyOfBody(status: number, body: string): string {
  if (status === 200) return answerKey(200);
  try {
    const parsed = JSON.parse(body) as { error?: unknown; layer?: unknown };
    if (typeof parsed.error !== 'string') return answerKey(status, 'unreadable');
    return answerKey(status, parsed.error, typeof parsed.layer === 'string' ? parsed.layer : undefined);
  } catch {
    return answerKey(status, 'unreadable');
  }
}

const allowedKeys = new Set(ALLOWED_ANSWERS.map((a) => answerKey(a.status, a.error, a.layer)));
const refusalKeys = new Set(ALLOWED_ANSWERS.filter((a) => a.refusal).map((a) => answerKey(a.status, a.error, a.layer)));

/** The answer that is neither a sale nor a refusal: the write may have landed (see outcome_unknown). */
export const UNKNOWN_OUTCOME = answerKey(503, 'outcome_unknown');

export const isAllowedAnswer = (key: string): boolean => allowedKeys.has(key);
export const isRefusal = (key: string): boolean => refusalKeys.has(key);
