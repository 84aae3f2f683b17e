import type { MemoryApiClient } from '@hindsight/memory-client';
import type {
  ForgetRequest,
  MemoryInput,
  SearchRequest,
  SearchResponse,
  SessionTurns,
  WriteResult,
} from '@hindsight/memory-model';
import { type ForgetOutcome, forgetWithSession } from '../memory/forget.ts';
import type { MemoryService } from '../memory/service.ts';

/**
 * What the MCP tools need from memory, for one tenant. Two backends: the
 * in-process `MemoryService` (Streamable HTTP inside memory-api, tenant from
 * the request's key) and memory-api's REST API (the stdio entry, tenant from
 * its key). Failures are `AppError`s; the tool wrapper turns them into results.
 */
export interface MemoryAccess {
  write(input: MemoryInput): Promise<WriteResult>;
  search(request: SearchRequest): Promise<SearchResponse>;
  /** `request.user_id` is always set: forgetting is confined to one user. */
  forget(request: ForgetRequest): Promise<ForgetOutcome>;
}

/** The working-memory side of a session, as far as forgetting needs it. */
export interface SessionForgetting {
  turns(tenant: string, sessionId: string): Promise<SessionTurns>;
  delete(tenant: string, sessionId: string): Promise<unknown>;
}

/** In-process backend: the tools run the domain directly, writes recorded as `mcp`. */
export function serviceMemoryAccess(memory: MemoryService, tenant: string, sessions?: SessionForgetting): MemoryAccess {
  return {
    async write(input) {
      const [result] = await memory.write({ tenant, via: 'mcp' }, [input]);
      return result as WriteResult;
    },
    search: (request) => memory.search(tenant, request),
    forget: (request) =>
      forgetWithSession(request, {
        longTerm: () => memory.forget(tenant, request),
        ...(sessions
          ? {
              turns: (sessionId: string) => sessions.turns(tenant, sessionId),
              deleteSession: async (sessionId: string) => void (await sessions.delete(tenant, sessionId)),
            }
          : {}),
      }),
  };
}

/** Remote backend: the same calls over memory-api's REST API. */
export function clientMemoryAccess(client: MemoryApiClient): MemoryAccess {
  return {
    // Over REST the transport would be recorded as `api`; the caller really is an MCP client.
    write: (input) => client.store({ ...input, source: { ...input.source, kind: 'mcp' } }),
    search: (request) => client.search(request),
    forget: (request) =>
      forgetWithSession(request, {
        longTerm: () => client.forget(request),
        turns: (sessionId) => client.sessionTurns(sessionId),
        deleteSession: async (sessionId) => void (await client.clearSession(sessionId)),
      }),
  };
}
