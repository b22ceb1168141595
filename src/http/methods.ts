// Which methods each route takes; any other is a 405 naming them in `Allow` (an unknown path stays
// a 404). Express answers HEAD with a GET route's handler, which for the deduction would sell a
// unit: its GET is the course's, so there HEAD is refused as well.
import type { Express, RequestHandler } from 'express';
import { MethodNotAllowedError } from './client-errors.js';

function refuse(path: string, allow: readonly string[]): RequestHandler {
  return (req, _res, next) => next(new MethodNotAllowedError(req.method, path, allow));
}

/** A GET with no side effect: HEAD answers as GET does (headers only), any other method is a 405. */
export function readRoute(app: Express, path: string, handler: RequestHandler): void {
  app
    .route(path)
    .get(handler)
    .all(refuse(path, ['GET', 'HEAD']));
}

/**
 * A GET that changes state (the deduction, the course's /test/* clicks): HEAD is a 405 too, so a
 * link checker or a probe changes nothing.
 */
export function changingGetRoute(app: Express, path: string, handler: RequestHandler): void {
  const notThis = refuse(path, ['GET']);
  app.route(path).head(notThis).get(handler).all(notThis);
}

export function postRoute(app: Express, path: string, ...handlers: RequestHandler[]): void {
  app
    .route(path)
    .post(...handlers)
    .all(refuse(path, ['POST']));
}
