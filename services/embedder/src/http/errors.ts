import { AppError, toErrorBody } from '@hindsight/errors';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/**
 * The one place HTTP errors are shaped: `{error: {code, message, details?}}`. 4xx show their
 * message; a dependency outage (503) names the provider and cause, which is what an operator
 * needs; any other 5xx says "internal error" and logs the cause.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = error.validation.map((v) => ({
        path: `${error.validationContext ?? 'body'}${v.instancePath.replaceAll('/', '.')}`,
        message: v.message ?? 'invalid',
      }));
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
      const body = toErrorBody(error);
      if (error.status >= 500) {
        request.log.error({ err: error }, error.message);
        if (error.code !== 'dependency_unavailable') body.error = { code: error.code, message: 'internal error' };
      }
      return reply.status(error.status).send(body);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      return reply.status(status).send({ error: { code: httpCode(error), message: error.message } });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'internal', message: 'internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url}` } }),
  );
}

function httpCode(error: FastifyError): string {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'payload_too_large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'unsupported_media_type';
  return 'bad_request';
}
