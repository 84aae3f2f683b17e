import type { ConnectionOptions } from 'node:tls';
import { type RetryOptions, withRetries } from '@hindsight/embedding';
import pg from 'pg';

export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:5432/database` */
  connectionString: string;
  /** Connections this process keeps open at most. */
  poolSize: number;
  /** Longest a statement may run before the server cancels it. */
  statementTimeoutMs: number;
  /** TLS to the server: off, or the options to verify it with. */
  ssl?: false | ConnectionOptions;
  connectTimeoutMs?: number;
  retry?: Pick<RetryOptions, 'retries' | 'baseDelayMs' | 'maxDelayMs'>;
  /** An idle pooled connection failed (the server restarted, the network dropped): it is replaced. */
  onIdleError?: (error: Error) => void;
  /** How the connections name themselves to the server (pg_stat_activity). */
  applicationName?: string;
}

/** The tenant a transaction serves, or every tenant (migrations, admin counts). */
export const ALL_TENANTS = Symbol('all tenants');
export type TenantScope = string | typeof ALL_TENANTS;

export interface TransactionOptions {
  tenant: TenantScope;
  readOnly?: boolean;
  /** Server settings for this transaction only (e.g. pgvector's `hnsw.ef_search`). */
  settings?: Readonly<Record<string, string>>;
}

/** The connection broke while COMMIT was in flight: the transaction may or may not have committed. */
export class CommitOutcomeUnknownError extends Error {
  constructor(cause: unknown) {
    super('the connection to PostgreSQL broke during COMMIT', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

const DEFAULT_RETRY = { retries: 3, baseDelayMs: 50, maxDelayMs: 1000 };

/** SQLSTATEs worth another attempt: serialization failure, deadlock, server shutting down, connection lost. */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** node-postgres reports a socket that went away with these messages and no code. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated unexpectedly',
];

/** The connection itself failed (not the statement): the client must not go back to the pool. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) {
    return true;
  }
  return code === undefined && CONNECTION_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * Whether repeating the whole transaction may succeed. A COMMIT whose answer was lost counts:
 * `run` repeats it only after checking it did not take effect.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof CommitOutcomeUnknownError) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return (typeof code === 'string' && TRANSIENT_SQLSTATES.has(code)) || isConnectionError(error);
}

/**
 * A node-postgres pool whose every unit of work is one transaction that names its tenant
 * (`hindsight.tenant`, read by the row-level security policy) and carries the statement timeout.
 * Transactions that fail for a transient reason are repeated whole, with backoff.
 */
export class PostgresDatabase {
  readonly pool: pg.Pool;
  private readonly retry: RetryOptions;

  constructor(private readonly options: PostgresConnectionOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: options.applicationName ?? 'hindsight-memory-api',
      ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
    });
    // Without a listener an idle connection's error would crash the process.
    this.pool.on('error', (error) => options.onIdleError?.(error));
    this.retry = { ...DEFAULT_RETRY, ...options.retry, isRetryable: isTransient };
  }

  /** Where the store connects, without the password. */
  get target(): string {
    return describeTarget(this.options.connectionString);
  }

  /**
   * Runs `work` in one transaction, repeated whole on a transient failure. When the connection
   * breaks during COMMIT, `committed` (if given) decides whether the transaction took effect;
   * otherwise, or when it did not, the transaction is repeated too.
   */
  run<T>(
    options: TransactionOptions,
    work: (client: pg.PoolClient) => Promise<T>,
    committed?: () => Promise<boolean>,
  ): Promise<T> {
    return this.retrying(async () => {
      let result: { value: T } | undefined;
      try {
        return await this.once(options, async (client) => {
          result = { value: await work(client) };
          return result.value;
        });
      } catch (error) {
        if (error instanceof CommitOutcomeUnknownError && result && committed && (await committed())) {
          return result.value;
        }
        throw error;
      }
    });
  }

  /** Repeats `call` on transient failures (and on a COMMIT whose outcome was lost), with backoff. */
  retrying<T>(call: () => Promise<T>): Promise<T> {
    return withRetries(call, this.retry);
  }

  /** Runs `work` in one transaction, once. */
  async once<T>(options: TransactionOptions, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // A checked-out client reports a dropped socket as an 'error' event as well as by failing
    // the query in flight; the failed query is what this transaction acts on.
    const onSocketError = (error: Error) => {
      broken = error;
    };
    client.on('error', onSocketError);
    try {
      await client.query(openingStatement(options, this.options.statementTimeoutMs));
      const result = await work(client);
      try {
        await client.query('COMMIT');
      } catch (error) {
        if (isConnectionError(error)) throw new CommitOutcomeUnknownError(error);
        throw error;
      }
      return result;
    } catch (error) {
      if (error instanceof CommitOutcomeUnknownError || isConnectionError(error)) {
        broken = error as Error;
      } else {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError as Error;
        }
      }
      throw error;
    } finally {
      client.off('error', onSocketError);
      // A broken connection is closed instead of going back to the pool.
      client.release(broken);
    }
  }

  /** Idempotent: a store closed twice (after a failed open, say) ends its pool once. */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}

/**
 * BEGIN and the transaction's settings in one round trip (the simple protocol runs several
 * statements; values are quoted as literals, since it takes no parameters).
 */
function openingStatement(options: TransactionOptions, statementTimeoutMs: number): string {
  const settings: Record<string, string> = {
    statement_timeout: String(statementTimeoutMs),
    ...(options.tenant === ALL_TENANTS
      ? { 'hindsight.all_tenants': 'on', 'hindsight.tenant': '' }
      : { 'hindsight.tenant': options.tenant, 'hindsight.all_tenants': 'off' }),
    ...options.settings,
  };
  const assignments = Object.entries(settings)
    .map(([name, value]) => `set_config(${pg.escapeLiteral(name)}, ${pg.escapeLiteral(value)}, true)`)
    .join(', ');
  return `BEGIN${options.readOnly ? ' READ ONLY' : ''}; SELECT ${assignments}`;
}

/** `postgres://user@host:port/database`, never the password. */
export function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return 'the server named by DATABASE_URL';
  }
}
