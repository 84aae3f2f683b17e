import { type Logger, loggerOptions } from '@hindsight/logger';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { clientErrorReply, frameworkErrorReply, registerErrorHandler } from './errors.ts';
import { requestLogController } from './request-logging.ts';
import { refuseWhileClosing } from './shutdown.ts';

export interface ServiceAppOptions {
  /** Names the service in its log lines when no logger is passed in. */
  service: string;
  /** LOG_LEVEL: the level of the logger made here, and whether requests are logged. */
  level: string;
  /** A pino logger to share; when absent Fastify makes one at `level`. */
  logger?: Logger;
  bodyLimit: number;
  /**
   * `debug`: a line per request only at debug/trace, where the service's own events would
   * otherwise drown; `always`: Fastify's default line per request.
   */
  requestLogging: 'debug' | 'always';
}

/**
 * The Fastify instance every HTTP service starts from: zod validation and serialization, the
 * caller's `X-Request-Id` as request id, the shared error mapping, and the envelope for requests
 * arriving while it closes. Routes are the caller's.
 */
export function createServiceApp(options: ServiceAppOptions) {
  const app = Fastify({
    ...(options.logger
      ? { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: loggerOptions({ service: options.service, level: options.level }) }),
    bodyLimit: options.bodyLimit,
    requestIdHeader: 'x-request-id',
    // Ids may be 128 characters (the schemas say so and answer 422 past it); the router's own
    // limit (100) would refuse valid ones first.
    maxParamLength: 512,
    frameworkErrors: frameworkErrorReply,
    clientErrorHandler: clientErrorReply,
    // Requests reaching a closing app get the error envelope instead (refuseWhileClosing).
    return503OnClosing: false,
    ...(options.requestLogging === 'debug' ? { logController: requestLogController(options.level) } : {}),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  refuseWhileClosing(app, options.service);
  registerErrorHandler(app);
  return app;
}
