import { DependencyUnavailableError } from '@hindsight/errors';
import {
  MAX_QUERY_LENGTH,
  type MemoryType,
  type SearchHit,
  SearchResponse,
  WriteResult,
} from '@hindsight/memory-model';
import type { UsedMemory } from './contract.ts';
import type { MemoryTools, ToolOutcome } from './ports.ts';

/** A memory the agent put in front of the model (or used in its offline answer), as `/chat` reports it. */
export function usedMemory(hit: SearchHit): UsedMemory {
  return { id: hit.id, content: hit.content, category: hit.category, layer: hit.layer, score: hit.score };
}

export interface SearchArgs {
  query: string;
  session_id?: string;
  top_k?: number;
  token_budget?: number;
  memory_types?: MemoryType[];
  min_score?: number;
}

/** `memory_search` through MCP, typed. The agent's own calls are well-formed, so a refusal means memory is unusable. */
export async function searchMemory(tools: MemoryTools, userId: string, args: SearchArgs): Promise<SearchResponse> {
  const query = args.query.slice(0, MAX_QUERY_LENGTH);
  const outcome = await tools.call(userId, 'memory_search', { ...args, query });
  return SearchResponse.parse(structuredOrThrow('memory_search', outcome));
}

export type WriteOutcome = { ok: true; result: WriteResult } | { ok: false; message: string };

/** `memory_write` through MCP; a refusal (guard, limits) is an answer to relay to the user, not a failure. */
export async function writeMemory(
  tools: MemoryTools,
  userId: string,
  args: { content: string; memory_type: MemoryType; session_id?: string; tags?: string[] },
): Promise<WriteOutcome> {
  const outcome = await tools.call(userId, 'memory_write', args);
  if (outcome.isError) return { ok: false, message: outcome.text };
  return { ok: true, result: WriteResult.parse(outcome.structured) };
}

function structuredOrThrow(tool: string, outcome: ToolOutcome): unknown {
  if (outcome.isError || !outcome.structured) {
    throw new DependencyUnavailableError('memory-api', `${tool} failed: ${outcome.text}`);
  }
  return outcome.structured;
}
