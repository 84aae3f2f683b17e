import { DependencyUnavailableError, describeError } from '@hindsight/errors';
import { MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';

/** What the exit status tells a script. */
export const EXIT = {
  ok: 0,
  /** Bad flags or arguments; nothing was sent. */
  usage: 1,
  /** memory-api answered with an error (4xx/5xx). */
  api: 2,
  /** memory-api could not be reached. */
  unreachable: 3,
  /** The memory (or other thing) asked for does not exist. */
  notFound: 4,
} as const;

export const DEFAULT_URL = 'http://127.0.0.1:8001';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface GlobalValues {
  url?: string;
  'api-key'?: string;
  json?: boolean;
  quiet?: boolean;
}

/** A command's view of the connection and of the terminal. */
export class CommandContext {
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;

  constructor(
    readonly io: Io,
    values: GlobalValues,
  ) {
    this.url = (values.url ?? io.env.HINDSIGHT_URL ?? DEFAULT_URL).replace(/\/+$/, '');
    this.apiKey = values['api-key'] ?? io.env.HINDSIGHT_API_KEY;
    this.json = values.json === true;
    this.quiet = values.quiet === true;
  }

  client(): MemoryApiClient {
    return new MemoryApiClient({
      baseUrl: this.url,
      ...(this.apiKey ? { apiKey: this.apiKey } : {}),
      timeoutMs: 60_000,
    });
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}), ...extra };
  }

  out(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Prints a value as JSON (one document) for `--json` callers. */
  outJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  note(text: string): void {
    if (!this.quiet) this.io.stderr.write(`${text}\n`);
  }
}

/** A usage mistake found before anything was sent. */
export class UsageError extends Error {}

export function parseInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} takes a positive integer, got "${text}"`);
  return value;
}

/** Turns what went wrong into a message on stderr and the exit status that names it. */
export function reportFailure(io: Io, url: string, error: unknown): number {
  if (error instanceof UsageError) {
    io.stderr.write(`${error.message}\nrun "hindsight --help" for usage\n`);
    return EXIT.usage;
  }
  if (error instanceof MemoryApiError) {
    io.stderr.write(`memory-api answered ${error.status} ${error.code}: ${error.message}\n`);
    if (error.status === 401 || error.status === 403) io.stderr.write('set HINDSIGHT_API_KEY or pass --api-key\n');
    return error.status === 404 ? EXIT.notFound : EXIT.api;
  }
  if (error instanceof DependencyUnavailableError || isConnectionFailure(error)) {
    io.stderr.write(`cannot reach memory-api at ${url}: ${describeError(error)}\nset HINDSIGHT_URL or pass --url\n`);
    return EXIT.unreachable;
  }
  io.stderr.write(`hindsight: ${describeError(error)}\n`);
  return EXIT.api;
}

/** fetch() rejects with a TypeError whose cause carries the socket error code. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  return error instanceof TypeError && typeof code === 'string';
}
