import type { Socket } from 'node:net';
import { AppError, type ErrorBody, toErrorBody } from '@hindsight/errors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/**
 * The one place HTTP errors are shaped: `{error: {code, message, details?}}`. 4xx show their
 * message and details. A dependency outage names the dependency and its cause, which is what an
 * operator needs, and a busy owner says so; any other 5xx says "internal error" and logs the
 * cause. No 5xx sends details.
 */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['dependency_unavailable', 'busy']);

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? 'body';
      const details = error.validation.flatMap((v) =>
        closestBranch({
          code: v.keyword,
          path: v.instancePath.split('/').filter((part: string) => part !== ''),
          message: v.message ?? 'invalid',
          errors: (v.params as { errors?: unknown }).errors,
        }).map((issue) => ({ path: [context, ...issue.path].join('.'), message: issue.message })),
      );
      const first = details[0];
      return reply.status(422).send({
        error: {
          code: 'validation_failed',
          message: first ? `${first.path}: ${first.message}` : 'request is invalid',
          details,
        },
      });
    }
    if (error instanceof AppError) {
      if (error.status < 500) return reply.status(error.status).send(toErrorBody(error));
      request.log.error({ err: error }, error.message);
      const message = RETRYABLE_CODES.has(error.code) ? error.message : 'internal error';
      // A busy owner clears within moments: tell the client when to come back.
      if (error.code === 'busy') reply.header('retry-after', '1');
      const body: ErrorBody = { error: { code: error.code, message } };
      return reply.status(error.status).send(body);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      return reply.status(status).send({ error: { code: clientErrorCode(error, status), message: error.message } });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'internal', message: 'internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url}` } }),
  );
}

interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  /** With `invalid_union`: the issues of each alternative. */
  errors?: unknown;
}

/**
 * A body that fits none of a union's alternatives (`/v1/memories`: one item or `{items}`) is
 * explained by the alternative it came closest to — the one whose issues reach deepest into the
 * body — so the answer names the field and batch item that is wrong, not "Invalid input".
 */
function closestBranch(issue: SchemaIssue): Array<{ path: string[]; message: string }> {
  const branches = Array.isArray(issue.errors) ? (issue.errors as SchemaIssue[][]) : [];
  if (issue.code !== 'invalid_union' || branches.length === 0) {
    return [{ path: issue.path.map(String), message: issue.message }];
  }
  // How deep the alternative got, then how few of its issues are about the body's shape (a field
  // missing or not expected), which is what an alternative the client did not mean mostly has.
  const reach = (branch: SchemaIssue[]) => Math.max(0, ...branch.map((i) => i.path.length));
  const shape = (branch: SchemaIssue[]) =>
    branch.filter((i) => i.code === 'unrecognized_keys' || /received undefined/.test(i.message)).length;
  const closer = (a: SchemaIssue[], b: SchemaIssue[]) =>
    reach(b) > reach(a) || (reach(b) === reach(a) && shape(b) < shape(a));
  const best = branches.reduce((a, b) => (closer(a, b) ? b : a));
  return best.flatMap((inner) =>
    closestBranch(inner).map((found) => ({ path: [...issue.path.map(String), ...found.path], message: found.message })),
  );
}

/** Fastify's own 4xx (body parser, rate limit) under the codes clients already branch on. */
function clientErrorCode(error: FastifyError, status: number): string {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'payload_too_large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  return 'bad_request';
}

/**
 * Errors Fastify raises before any route runs (its `frameworkErrors` option): a path that is not
 * percent-encoded UTF-8 (`/v1/memories/%C0%AF`, a lone surrogate's `%ED%A0%80`) or a path
 * parameter past the router's limit, in the same envelope as every other error.
 */
export function frameworkErrorReply(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send({ error: { code: 'bad_request', message: 'the URL is not valid percent-encoded UTF-8' } });
    return;
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send({ error: { code: 'uri_too_long', message: 'a path parameter of this URL is too long' } });
    return;
  }
  reply.log.error({ err: error }, 'framework error');
  reply.status(Math.min(status, 500)).send({ error: { code: 'internal', message: 'internal error' } });
}

/** A request the HTTP parser could not read (no route, no reply object): the envelope, then close. */
export function clientErrorReply(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    error: tooLarge
      ? { code: 'headers_too_large', message: 'the request headers are too large' }
      : { code: 'bad_request', message: 'the request is not valid HTTP/1.1' },
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
