// The one mapping from failures to HTTP answers: 4xx for what the client sent, a fast 503 naming
// what was unavailable, 500 only for genuine bugs. Bodies never carry a driver's or a library's
// own message (they may name hosts, users or SQL): the log has those.
import type { ErrorRequestHandler } from 'express';
import { DependencyDownError, OutcomeUnknownError, isConnectionError } from '../dependency.js';
import { PoolBusyError } from '../db/connections.js';
import { BusyError, ClientGoneError, ShuttingDownError } from './in-flight.js';
import { FencedError } from '../fencing.js';
import { LockLostError, LockTimeoutError } from '../locks/errors.js';
import type { Logger } from '../logger.js';
import { RetriesExhaustedError } from '../strategies/retry.js';
import { DeadlockError, isDeadlock } from '../stock/mysql-stock.js';
import { ALLOWED_ANSWERS } from './answers.js';
import { bodyParserError, ClientError, MethodNotAllowedError } from './client-errors.js';
import type { ServiceMetrics } from './metrics.js';
import { BadRequestError } from './params.js';

interface ErrorAnswer {
  status: number;
  body: { ok: false; error: string; message: string; param?: string; valid?: readonly string[] };
  headers?: Record<string, string>;
}

/** The fixed text of every 500: what went wrong is in the instance's log, not in the answer. */
export const INTERNAL_MESSAGE = 'internal error; the instance log has the details';

export function describeError(err: unknown): ErrorAnswer {
  if (err instanceof BadRequestError) {
    return { status: 400, body: { ok: false, error: 'bad_request', param: err.param, message: err.message, ...(err.valid && { valid: err.valid }) } };
  }
  const client = err instanceof ClientError ? err : bodyParserError(err);
  if (client) {
    return {
      status: client.status,
      body: { ok: false, error: client.code, param: client.param, message: client.message, ...(client.valid && { valid: client.valid }) },
      ...(client instanceof MethodNotAllowedError && { headers: { Allow: client.allow.join(', ') } }),
    };
  }
  if (err instanceof LockTimeoutError) return unavailable('lock_timeout');
  if (err instanceof LockLostError) return unavailable('lock_lost');
  if (err instanceof FencedError) return unavailable('fenced');
  if (err instanceof RetriesExhaustedError) return unavailable('retries_exhausted');
  // InnoDB rolled the victim's whole transaction back, nothing written: sql-share-mode's own upgrade,
  // or any deduction beside it when requests mix strategies on the one row.
  if (err instanceof DeadlockError || isDeadlock(err)) return unavailable('deadlock');
  if (err instanceof OutcomeUnknownError) return unavailable('outcome_unknown');
  if (err instanceof BusyError || err instanceof PoolBusyError) return unavailable('busy');
  if (err instanceof ShuttingDownError) return unavailable('shutting_down');
  if (err instanceof ClientGoneError) return unavailable('client_gone');
  if (err instanceof DependencyDownError) return unavailable(`${err.dependency}_unavailable`);
  if (isConnectionError(err)) return unavailable('dependency_unavailable');
  return { status: 500, body: { ok: false, error: 'internal', message: INTERNAL_MESSAGE } };
}

/** A 503's message is the documented meaning of its code (src/http/answers.ts), never the error's own text; nginx's own are not ours. */
const MEANINGS = new Map(ALLOWED_ANSWERS.filter((a) => a.status === 503 && !a.layer).map((a) => [a.error, a.meaning]));

function unavailable(error: string): ErrorAnswer {
  return { status: 503, body: { ok: false, error, message: MEANINGS.get(error) ?? 'a server this request needs could not be used' } };
}

/**
 * Answers an error, and counts it. A 500 is a bug and is logged with its error; a 503 is an
 * expected refusal (a lock wait ran out, a server is down) and is only counted, as are 4xx: under
 * contention there are thousands a second. LOG_LEVEL=debug logs them too.
 */
export function errorHandler(logger: Logger, counts: Pick<ServiceMetrics, 'add'>): ErrorRequestHandler {
  return (err, req, res, next) => {
    const { status, body, headers } = describeError(err);
    counts.add({ ...answerRoute(req.route), ...answerStrategy(res.locals.strategy), status, error: body.error });
    const requestId = req.headers['x-request-id'];
    const where = { method: req.method, path: req.path, status, ...(typeof requestId === 'string' && { requestId }) };
    if (status >= 500 && status !== 503) logger.error({ err, ...where }, body.error);
    else if (logger.isLevelEnabled('debug')) logger.debug({ err, ...where }, body.error);
    if (res.headersSent) {
      next(err); // too late for an answer: Express ends the connection
      return;
    }
    if (headers) res.set(headers);
    res.status(status).json(body);
  };
}

function answerRoute(route: unknown): { route?: string } {
  const path = (route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? { route: path } : {};
}

function answerStrategy(strategy: unknown): { strategy?: string } {
  return typeof strategy === 'string' ? { strategy } : {};
}
