import { env, loadConfig } from '@hindsight/config';
import { z } from 'zod';

/** Environment of the stdio MCP server (`hindsight-mcp`), a client of a running memory-api. */
export const McpStdioEnv = z.object({
  /** memory-api to talk to. */
  HINDSIGHT_URL: z.url().default('http://127.0.0.1:8001'),
  /** A tenant key of memory-api; unset works only against a memory-api without keys. */
  HINDSIGHT_API_KEY: env.optionalString(),
  /** Whose memories the tools read and write when a call names no `user_id`. */
  HINDSIGHT_USER_ID: env.optionalString().pipe(z.string().min(1).max(128).optional()),
  HINDSIGHT_TIMEOUT_MS: env.int(15_000, 100),
  LOG_LEVEL: env.logLevel(),
});

export type McpStdioConfig = z.output<typeof McpStdioEnv>;

export function loadMcpStdioConfig(source: Record<string, string | undefined> = process.env): Readonly<McpStdioConfig> {
  return loadConfig('hindsight-mcp', McpStdioEnv, source);
}
