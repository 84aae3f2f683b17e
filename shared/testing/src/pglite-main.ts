import { parseArgs } from 'node:util';
import { startPgliteServer } from './pglite-server.ts';

/**
 * A PGlite + pgvector server in its own process: `node --import tsx pglite-main.ts --port=5433
 * [--data-dir=DIR] [--max-connections=N]`. Prints
 * `pglite listening <url>` when it accepts connections; SIGINT/SIGTERM stop it.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    'max-connections': { type: 'string' },
  },
});
const server = await startPgliteServer({
  ...(values.port ? { port: Number(values.port) } : {}),
  ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  ...(values['max-connections'] ? { maxConnections: Number(values['max-connections']) } : {}),
});
process.stdout.write(`pglite listening ${server.url}\n`);
const stop = (signal: NodeJS.Signals) => {
  server.stop().then(
    () => process.exit(signal === 'SIGINT' ? 130 : 143),
    (error: unknown) => {
      process.stderr.write(`pglite failed to stop: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
