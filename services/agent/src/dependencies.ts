import { OpenAiCompatibleLlm } from '@hindsight/llm';
import type { Logger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { McpMemoryTools } from './adapters/mcp-memory-tools.ts';
import { RestSessionMemory } from './adapters/rest-session-memory.ts';
import type { AgentConfig } from './config.ts';
import { Conversation } from './conversation/conversation.ts';

export interface AgentDependencies {
  conversation: Conversation;
  tools: McpMemoryTools;
  /** memory-api's REST client (sessions, and the key check at start). */
  memoryApi: MemoryApiClient;
  close(): Promise<void>;
}

/** The agent wired to memory-api (MCP + REST) and, when configured, a model. */
export function createDependencies(config: Readonly<AgentConfig>, log: Logger): AgentDependencies {
  const apiKey = config.MEMORY_API_KEY ? { apiKey: config.MEMORY_API_KEY } : {};
  const tools = new McpMemoryTools({
    baseUrl: config.MEMORY_API_URL,
    timeoutMs: config.MEMORY_API_TIMEOUT_MS,
    log,
    ...apiKey,
  });
  const memoryApi = new MemoryApiClient({
    baseUrl: config.MEMORY_API_URL,
    timeoutMs: config.MEMORY_API_TIMEOUT_MS,
    ...apiKey,
  });
  const sessions = new RestSessionMemory(memoryApi);
  const model =
    config.LLM_BASE_URL && config.LLM_MODEL
      ? new OpenAiCompatibleLlm(config.LLM_MODEL, {
          baseUrl: config.LLM_BASE_URL,
          apiKey: config.LLM_API_KEY,
          timeoutMs: config.LLM_TIMEOUT_MS,
          maxRetries: 1,
        })
      : undefined;
  const conversation = new Conversation({
    tools,
    sessions,
    ...(model ? { model } : {}),
    settings: {
      contextTokens: config.CONTEXT_TOKENS,
      profileShare: config.PROFILE_SHARE,
      memoryShare: config.MEMORY_SHARE,
      topK: config.SEARCH_TOP_K,
      recentTurns: config.RECENT_TURNS,
      maxToolRounds: config.LLM_MAX_TOOL_ROUNDS,
    },
    log,
  });
  return { conversation, tools, memoryApi, close: () => tools.close() };
}
