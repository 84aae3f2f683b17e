import { LogController } from 'fastify';

/** Per-request log lines only when debugging: at info they would drown the service's own events. */
export function requestLogController(level: string): LogController {
  return new LogController({ disableRequestLogging: level !== 'debug' && level !== 'trace' });
}
