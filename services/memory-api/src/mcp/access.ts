import type { MemoryApiClient } from '@hindsight/memory-client';
import type {
  ForgetRequest,
  ForgetResponse,
  MemoryInput,
  SearchRequest,
  SearchResponse,
  WriteResult,
} from '@hindsight/memory-model';
import type { z } from 'zod';
import { forgetMemories } from '../memory/manage.ts';
import type { MemoryService } from '../memory/service.ts';

export type ForgetOutcome = z.infer<typeof ForgetResponse>;

/**
 * What the MCP tools need from memory, for one tenant. Two backends: the
 * in-process `MemoryService` (Streamable HTTP inside memory-api, tenant from
 * the request's key) and memory-api's REST API (the stdio entry, tenant from
 * its key). Failures are `AppError`s; the tool wrapper turns them into results.
 */
export interface MemoryAccess {
  write(input: MemoryInput): Promise<WriteResult>;
  search(request: SearchRequest): Promise<SearchResponse>;
  forget(request: ForgetRequest): Promise<ForgetOutcome>;
}

/** In-process backend: the tools run the domain directly, writes recorded as `mcp`. */
export function serviceMemoryAccess(memory: MemoryService, tenant: string): MemoryAccess {
  return {
    async write(input) {
      const [result] = await memory.write({ tenant, via: 'mcp' }, [input]);
      return result as WriteResult;
    },
    search: (request) => memory.search(tenant, request),
    forget: (request) => forgetMemories(memory.manage, tenant, request),
  };
}

/** Remote backend: the same calls over memory-api's REST API. */
export function clientMemoryAccess(client: MemoryApiClient): MemoryAccess {
  return {
    // Over REST the transport would be recorded as `api`; the caller really is an MCP client.
    write: (input) => client.store({ ...input, source: { ...input.source, kind: 'mcp' } }),
    search: (request) => client.search(request),
    forget: (request) => client.forget(request),
  };
}
