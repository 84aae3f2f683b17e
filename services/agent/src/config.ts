import { env, loadConfig } from '@hindsight/config';
import { z } from 'zod';

/** Every environment variable the agent reads. */
export const AgentEnv = z
  .object({
    HOST: z.string().default('127.0.0.1'),
    PORT: env.port(8000),
    LOG_LEVEL: env.logLevel(),
    /** The longest a SIGTERM/SIGINT shutdown takes: in-flight work gets most of it, then the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: env.shutdownTimeoutMs(),
    /**
     * Keys of the agent's callers, `name:key,...`: an application holding one may chat as any user.
     * With no caller keys and no user tokens the agent listens on loopback only.
     */
    AGENT_API_KEYS: env.optionalString(),
    /** A file with one `name:key` per line (secrets mounted by compose). */
    AGENT_API_KEYS_FILE: env.optionalString(),
    /** Per-user tokens, `user_id:token,...`: a caller holding one may chat only as that user. */
    AGENT_USER_TOKENS: env.optionalString(),
    /** memory-api; the agent reaches its tools at `${MEMORY_API_URL}/mcp`. */
    MEMORY_API_URL: z.url().default('http://127.0.0.1:8001'),
    /**
     * A tenant key of memory-api; unset works only against a memory-api without keys. The agent
     * checks it at start (`GET /v1/whoami`) and refuses to start when memory-api refuses it.
     */
    MEMORY_API_KEY: env.optionalString(),
    MEMORY_API_TIMEOUT_MS: env.int(10_000, 100),
    /** An OpenAI-compatible chat-completions endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
    LLM_BASE_URL: env.optionalString().pipe(z.url().optional()),
    LLM_MODEL: env.optionalString(),
    LLM_API_KEY: env.optionalString(),
    LLM_TIMEOUT_MS: env.int(60_000, 100),
    /** Model turns that may call tools before the model must answer. */
    LLM_MAX_TOOL_ROUNDS: env.int(4, 0, 16),
    /** The model's context window in tokens; the memory shares below are of this. */
    CONTEXT_TOKENS: env.int(8192, 512),
    /** Share of the context the profile summary and top preferences may take (DESIGN §7: 15 %). */
    PROFILE_SHARE: env.number(0.15, 0, 0.5),
    /** Share of the context the memories retrieved for one message may take. */
    MEMORY_SHARE: env.number(0.25, 0, 0.8),
    /** Memories retrieved per message. */
    SEARCH_TOP_K: env.int(8, 1, 100),
    /** Recent turns of the session given to the model and used to rewrite vague messages. */
    RECENT_TURNS: env.int(8, 0, 100),
    BODY_LIMIT_BYTES: env.int(64 * 1024, 1024),
  })
  .superRefine((c, ctx) => {
    if ((c.LLM_BASE_URL === undefined) !== (c.LLM_MODEL === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.LLM_BASE_URL === undefined ? 'LLM_BASE_URL' : 'LLM_MODEL'],
        message: 'LLM_BASE_URL and LLM_MODEL go together: set both to use a model, or neither for the offline policy',
      });
    }
  });

export type AgentConfig = z.output<typeof AgentEnv>;

export function loadAgentConfig(source: Record<string, string | undefined> = process.env): Readonly<AgentConfig> {
  return loadConfig('agent', AgentEnv, source);
}
