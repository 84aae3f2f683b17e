import type { MemoryApiClient } from '@hindsight/memory-client';
import {
  type ForgetRequest,
  ForgetResponse,
  type MemoryInput,
  type SearchRequest,
  type SearchResponse,
  type SessionTurns,
  type WriteResult,
} from '@hindsight/memory-model';
import { z } from 'zod';
import { forgetMemories } from '../memory/manage.ts';
import type { MemoryService } from '../memory/service.ts';

/** What `memory_forget` answers: the long-term memories forgotten, and a forgotten session's working memory. */
export const ForgetOutcome = ForgetResponse.omit({ preview: true }).extend({
  working_turns: z
    .number()
    .int()
    .describe(
      "Turns removed from the session's working memory (counted only, on a dry run); 0 unless forgetting by session_id alone",
    ),
});
export type ForgetOutcome = z.infer<typeof ForgetOutcome>;

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
        longTerm: () => forgetMemories(memory.manage, tenant, request),
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

interface ForgetSteps {
  longTerm(): Promise<z.infer<typeof ForgetResponse>>;
  turns?(sessionId: string): Promise<SessionTurns>;
  deleteSession?(sessionId: string): Promise<void>;
}

/**
 * Forgetting by `session_id` alone also forgets that session's working memory:
 * otherwise the turns would be consolidated at session end and the forgotten facts
 * would come back. Narrower filters (tags, before, an id) leave working memory alone,
 * and so does a session of another user.
 */
async function forgetWithSession(request: ForgetRequest, steps: ForgetSteps): Promise<ForgetOutcome> {
  // The tool answers counts and ids; the REST dry run's preview (memory contents) is for people.
  const { preview: _preview, ...longTerm } = await steps.longTerm();
  const sessionId = request.session_id;
  const sessionOnly =
    sessionId !== undefined && request.memory_id === undefined && !request.tags?.length && request.before === undefined;
  if (!sessionOnly || !steps.turns || !steps.deleteSession) return { ...longTerm, working_turns: 0 };
  const session = await steps.turns(sessionId);
  if (session.user_id !== request.user_id || session.turns.length === 0) return { ...longTerm, working_turns: 0 };
  if (!request.dry_run) await steps.deleteSession(sessionId);
  return { ...longTerm, working_turns: session.turns.length };
}
