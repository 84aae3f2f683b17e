import { createLogger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { clientMemoryAccess } from './access.ts';
import { connectScreened } from './screen-requests.ts';
import { createMcpServer } from './server.ts';
import { loadMcpStdioConfig } from './stdio-config.ts';

/**
 * The memory tools over stdio for desktop MCP clients, backed by a running memory-api
 * (HINDSIGHT_URL + HINDSIGHT_API_KEY). stdout carries the protocol only: logs go to stderr.
 */
async function main(): Promise<void> {
  const config = loadMcpStdioConfig();
  const log = createLogger({ service: 'hindsight-mcp', level: config.LOG_LEVEL, toStderr: true });
  const client = new MemoryApiClient({
    baseUrl: config.HINDSIGHT_URL,
    timeoutMs: config.HINDSIGHT_TIMEOUT_MS,
    ...(config.HINDSIGHT_API_KEY ? { apiKey: config.HINDSIGHT_API_KEY } : {}),
  });
  const server = createMcpServer({
    access: clientMemoryAccess(client),
    log,
    ...(config.HINDSIGHT_USER_ID ? { userId: config.HINDSIGHT_USER_ID } : {}),
  });
  const transport = new StdioServerTransport();
  await connectScreened(server, transport, log);
  log.info(
    { memoryApi: config.HINDSIGHT_URL, user: config.HINDSIGHT_USER_ID ?? null },
    'hindsight MCP server ready on stdio',
  );

  let stopping = false;
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    try {
      await server.close();
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
    }
    log.flush();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', 130));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 143));
  // The desktop client closing our stdin is the normal way a stdio server ends.
  process.stdin.once('end', () => void shutdown('stdin closed', 0));
}

main().catch((error: unknown) => {
  process.stderr.write(`hindsight-mcp failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
