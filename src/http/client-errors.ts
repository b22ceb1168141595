// Refusals for how a request was sent (method, media type, body), as opposed to a bad query
// parameter (BadRequestError). Each names what is at fault in `param`, as every 4xx does.

export type ClientErrorStatus = 400 | 405 | 413 | 415;

export class ClientError extends Error {
  constructor(
    readonly status: ClientErrorStatus,
    /** The body's `error` code. */
    readonly code: string,
    /** The header, field or part of the request at fault: `content-type`, `body`, `method`. */
    readonly param: string,
    message: string,
    readonly valid?: readonly string[],
  ) {
    super(message);
  }
}

/** A known path asked with a method it does not take: 405, with the ones it does in `Allow`. */
export class MethodNotAllowedError extends ClientError {
  constructor(
    method: string,
    path: string,
    readonly allow: readonly string[],
  ) {
    super(405, 'method_not_allowed', 'method', `${path} takes ${allow.join(' or ')}, not ${method}`, allow);
  }
}

/** The media type POST /stock/reset reads; anything else is refused before the body is read. */
const JSON_TYPE = 'application/json';

/** 415 unless the request says its body is JSON: a form or text/plain (what a web page can send without a preflight) is refused. */
export function requireJsonBody(contentType: string | undefined): ClientError | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === JSON_TYPE) return undefined;
  return new ClientError(415, 'unsupported_media_type', 'content-type', `content-type must be ${JSON_TYPE}${type ? `, not ${type.slice(0, 100)}` : ''}`, [
    JSON_TYPE,
  ]);
}

/** What body-parser's own errors mean, by their `type`: each keeps its 4xx. */
const BODY_ERRORS: Record<string, (e: { limit?: unknown }) => ClientError> = {
  'entity.too.large': (e) =>
    new ClientError(413, 'payload_too_large', 'body', `body is larger than ${typeof e.limit === 'number' ? `${e.limit} bytes` : 'the limit'}`),
  'entity.parse.failed': () => new ClientError(400, 'bad_request', 'body', 'body is not valid JSON'),
  'charset.unsupported': () => new ClientError(415, 'unsupported_media_type', 'content-type', 'the charset must be utf-8', ['utf-8']),
  'encoding.unsupported': () =>
    new ClientError(415, 'unsupported_media_type', 'content-encoding', 'content-encoding must be identity, gzip, deflate or br', [
      'identity',
      'gzip',
      'deflate',
      'br',
    ]),
  'request.aborted': () => new ClientError(400, 'request_aborted', 'body', 'the client closed the connection before the body arrived'),
  'request.size.invalid': () => new ClientError(400, 'bad_request', 'body', 'the body is not as long as content-length says'),
};

/**
 * body-parser's error as the refusal it stands for, or undefined for anything else. Its other
 * errors with a 4xx (it marks them `expose`) stay 4xx too; its 5xx (a misuse of the stream) are bugs.
 */
export function bodyParserError(err: unknown): ClientError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { type, status, expose, limit } = err as Error & { type?: unknown; status?: unknown; expose?: unknown; limit?: unknown };
  if (typeof type !== 'string' || typeof status !== 'number') return undefined;
  const known = BODY_ERRORS[type];
  if (known) return known({ limit });
  if (expose === true && status >= 400 && status < 500) return new ClientError(400, 'bad_request', 'body', 'the body could not be read');
  return undefined;
}
