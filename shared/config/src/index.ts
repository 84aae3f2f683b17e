import { z } from 'zod';

/**
 * Parses a service's environment against its schema once, at boot. Every
 * problem is listed in one error so an operator fixes them all in one go.
 * The result is frozen: configuration never changes while a process runs.
 */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(service: string, problems: string[]) {
    super(`invalid configuration for ${service}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.output<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(environment)';
      const value = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
      const shown = value === undefined ? '' : ` (got ${JSON.stringify(redactValue(String(issue.path[0]), value))})`;
      return `${key}: ${issue.message}${shown}`;
    });
    throw new ConfigError(service, problems);
  }
  return deepFreeze(parsed.data);
}

const SECRET_KEY = /KEY|SECRET|TOKEN|PASSWORD/i;

function redactValue(key: string, value: string): string {
  return SECRET_KEY.test(key) ? '[redacted]' : value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  }
  return value;
}

/** Reusable env field parsers (env values are always strings). */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  number: (fallback: number, min = -Infinity, max = Infinity) => z.coerce.number().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: () => z.url(),
  optionalString: () =>
    z
      .string()
      .optional()
      .transform((v) => (v === undefined || v === '' ? undefined : v)),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** SHUTDOWN_TIMEOUT_MS of every service: the longest a SIGTERM/SIGINT shutdown may take before the process exits anyway. */
  shutdownTimeoutMs: () => z.coerce.number().int().min(100).max(600_000).default(10_000),
};

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}
