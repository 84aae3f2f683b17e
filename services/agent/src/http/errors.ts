import { AppError, toErrorBody } from '@hindsight/errors';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/** The agent's one error mapping: `{error: {code, message, details?}}`; 5xx causes are logged, not sent. */
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
        if (error.code !== 'dependency_unavailable') body.error.message = 'internal error';
        delete body.error.details;
      }
      return reply.status(error.status).send(body);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.status(status).send({ error: { code: 'bad_request', message: error.message } });
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'internal', message: 'internal error' } });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url}` } }),
  );
}
