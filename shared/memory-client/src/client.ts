import { AppError, DependencyUnavailableError, networkCause } from '@hindsight/errors';
import type { DecayResult, JobStatus } from '@hindsight/jobs';
import type {
  AppendTurnsResponse,
  CallerIdentity,
  EndSessionResponse,
  EraseUserResponse,
  ForgetRequest,
  MemoryInput,
  MemoryRecord,
  PutUserSummaryBody,
  SearchRequest,
  SearchResponse,
  SessionTurns,
  TurnInput,
  UserSummary,
  WriteResult,
} from '@hindsight/memory-model';

export interface MemoryApiClientOptions {
  /** e.g. http://127.0.0.1:8001 */
  baseUrl: string;
  apiKey?: string;
  /** Sent as X-User-Id (the default owner for MCP calls). */
  userId?: string;
  timeoutMs?: number;
  /** Sent as X-Tenant-Id: with the admin key, the tenant a service acts for (the worker). */
  tenant?: string;
  /**
   * Sent as X-Hindsight-Job: the job these calls are made for (the worker). memory-api refuses
   * its writes for a user erased after the job was enqueued (410 `user_erased`).
   */
  jobId?: string;
}

/** An error answer of memory-api, carrying its status and `{error:{code,message}}`. */
export class MemoryApiError extends AppError {}

type SearchInput = Partial<SearchRequest> & Pick<SearchRequest, 'query'>;

/**
 * Typed HTTP client of memory-api, used by the worker, the CLI, the eval and bench
 * commands and the stdio MCP server. Errors from the API keep their code and status;
 * a connection failure is a `DependencyUnavailableError('memory-api', ...)`.
 */
export class MemoryApiClient {
  private readonly baseUrl: string;

  constructor(private readonly options: MemoryApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The tenant this client's key acts for (a 401 when memory-api refuses the key). */
  whoami(): Promise<CallerIdentity> {
    return this.request('GET', '/v1/whoami');
  }

  store(input: MemoryInput, idempotencyKey?: string): Promise<WriteResult> {
    return this.request('POST', '/v1/memories', input, idempotencyKey);
  }

  storeBatch(items: MemoryInput[], idempotencyKey?: string): Promise<{ items: WriteResult[] }> {
    return this.request('POST', '/v1/memories', { items }, idempotencyKey);
  }

  search(request: SearchInput): Promise<SearchResponse> {
    return this.request('POST', '/v1/search', request);
  }

  get(id: string): Promise<MemoryRecord> {
    return this.request('GET', `/v1/memories/${encodeURIComponent(id)}`);
  }

  list(
    query: Record<string, string | number | undefined> = {},
  ): Promise<{ items: MemoryRecord[]; next_cursor: string | null }> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const suffix = params.size > 0 ? `?${params}` : '';
    return this.request('GET', `/v1/memories${suffix}`);
  }

  forget(request: Partial<ForgetRequest>): Promise<{ count: number; ids: string[]; dry_run: boolean }> {
    return this.request('POST', '/v1/forget', request);
  }

  delete(id: string): Promise<{ id: string; deleted: true }> {
    return this.request('DELETE', `/v1/memories/${encodeURIComponent(id)}`);
  }

  /** Appends turns to a session's working memory. */
  appendTurns(sessionId: string, turns: TurnInput[]): Promise<AppendTurnsResponse> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/turns`, { turns });
  }

  /** A session's working memory; `through` keeps only turns up to that sequence number. */
  sessionTurns(sessionId: string, options: { through?: number; userId?: string } = {}): Promise<SessionTurns> {
    const params = new URLSearchParams();
    if (options.through !== undefined) params.set('through', String(options.through));
    if (options.userId !== undefined) params.set('user_id', options.userId);
    const suffix = params.size > 0 ? `?${params}` : '';
    return this.request('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/turns${suffix}`);
  }

  /** Forgets a session's working memory, or with `through` only the turns up to it. */
  clearSession(
    sessionId: string,
    through?: number,
  ): Promise<{ session_id: string; deleted: boolean; removed_turns?: number; jobs?: number }> {
    const suffix = through !== undefined ? `?through=${through}` : '';
    return this.request('DELETE', `/v1/sessions/${encodeURIComponent(sessionId)}${suffix}`);
  }

  /** Ends a session: enqueues its hindsight consolidation. */
  endSession(sessionId: string, userId: string): Promise<EndSessionResponse> {
    return this.request('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/end`, { user_id: userId });
  }

  job(id: string): Promise<JobStatus> {
    return this.request('GET', `/v1/jobs/${encodeURIComponent(id)}`);
  }

  userSummary(userId: string): Promise<UserSummary> {
    return this.request('GET', `/v1/users/${encodeURIComponent(userId)}/summary`);
  }

  putUserSummary(userId: string, body: PutUserSummaryBody): Promise<UserSummary> {
    return this.request('PUT', `/v1/users/${encodeURIComponent(userId)}/summary`, body);
  }

  /** Erases everything of one user (long-term, working memory, queued jobs). */
  eraseUser(userId: string): Promise<EraseUserResponse> {
    return this.request('DELETE', `/v1/users/${encodeURIComponent(userId)}`);
  }

  /** Admin: one decay pass over every tenant. */
  runDecay(now?: string): Promise<DecayResult> {
    return this.request('POST', '/admin/maintenance/decay', now ? { now } : {});
  }

  /** Any other route, for callers that need one this class does not name yet. */
  async request<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (this.options.userId) headers['x-user-id'] = this.options.userId;
    if (this.options.tenant) headers['x-tenant-id'] = this.options.tenant;
    if (this.options.jobId) headers['x-hindsight-job'] = this.options.jobId;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new DependencyUnavailableError('memory-api', `${method} ${path} failed: ${networkCause(error)}`, {
        cause: error,
      });
    }
    if (!response.ok) throw await apiErrorFrom(response, `${method} ${path}`);
    const text = await response.text();
    return (text ? safeJson(text) : undefined) as T;
  }
}

/**
 * The error an answer of memory-api carries (`{error: {code, message, details?}}`), with its
 * status; used for JSON and streaming routes alike.
 */
export async function apiErrorFrom(response: Response, what: string): Promise<MemoryApiError> {
  const text = await response.text();
  const body = text ? safeJson(text) : undefined;
  const problem = (body as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
  return new MemoryApiError(
    problem?.code ?? `http_${response.status}`,
    response.status,
    problem?.message ?? `${what} answered ${response.status}`,
    problem?.details as Record<string, unknown> | undefined,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'invalid_response', message: `memory-api answered non-JSON: ${text.slice(0, 200)}` } };
  }
}
