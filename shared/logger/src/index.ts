import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  'api_key',
  '*.apiKey',
  '*.api_key',
  'password',
  '*.password',
  'secret',
  '*.secret',
];

export interface LoggerSettings {
  service: string;
  level?: string;
  /** Write to stderr (the stdio MCP server must keep stdout for the protocol). */
  toStderr?: boolean;
}

export function loggerOptions({ service, level = 'info' }: LoggerSettings): LoggerOptions {
  return {
    name: service,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service },
  };
}

/** pino with redaction; JSON lines, to stdout unless told otherwise. */
export function createLogger(settings: LoggerSettings): Logger {
  const destination = pino.destination({ fd: settings.toStderr ? 2 : 1, sync: false });
  return pino(loggerOptions(settings), destination);
}
