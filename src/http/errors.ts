// The one mapping from failures to HTTP answers: 4xx for what the client sent, a fast 503 naming
// what was unavailable, 500 only for genuine bugs.
import type { ErrorRequestHandler } from 'express';
import { DependencyDownError, isConnectionError } from '../dependency.js';
import { FencedError } from '../fencing.js';
import { LockLostError, LockTimeoutError } from '../locks/errors.js';
import type { Logger } from '../logger.js';
import { RetriesExhaustedError } from '../strategies/retry.js';
import { BadRequestError } from './params.js';

interface ErrorAnswer {
  status: number;
  body: { ok: false; error: string; message: string; param?: string; valid?: readonly string[] };
}

export function describeError(err: unknown): ErrorAnswer {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof BadRequestError) {
    return { status: 400, body: { ok: false, error: 'bad_request', param: err.param, message, ...(err.valid && { valid: err.valid }) } };
  }
  if (isBodyParseError(err)) return { status: 400, body: { ok: false, error: 'bad_request', param: 'body', message: 'body is not valid JSON' } };
  if (err instanceof LockTimeoutError) return unavailable('lock_timeout', message);
  if (err instanceof LockLostError) return unavailable('lock_lost', message);
  if (err instanceof FencedError) return unavailable('fenced', message);
  if (err instanceof RetriesExhaustedError) return unavailable('retries_exhausted', message);
  if (err instanceof DependencyDownError) return unavailable(`${err.dependency}_unavailable`, message);
  if (isConnectionError(err)) return unavailable('dependency_unavailable', message);
  return { status: 500, body: { ok: false, error: 'internal', message } };
}

function unavailable(error: string, message: string): ErrorAnswer {
  return { status: 503, body: { ok: false, error, message } };
}

function isBodyParseError(err: unknown): boolean {
  return err instanceof SyntaxError && (err as SyntaxError & { type?: string }).type === 'entity.parse.failed';
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, body } = describeError(err);
    if (status >= 500) logger.warn({ err, path: req.path, status }, body.error);
    res.status(status).json(body);
  };
}
