import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { freePort } from './free-port.ts';
import { type ServiceProcess, spawnService } from './service-process.ts';

/** A PostgreSQL 18 + pgvector 0.8 server (PGlite in WebAssembly) speaking the wire protocol on loopback. */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface PgliteServerOptions {
  /** A directory to keep the database in; in memory when absent. */
  dataDir?: string;
  port?: number;
  /**
   * Client connections served at once. PGlite itself runs one query at a time: the socket server
   * queues the others, and while one connection is inside a transaction only its own queries run,
   * so transactions of several connections are serialised rather than interleaved.
   */
  maxConnections?: number;
}

/** Starts PGlite with pgvector and serves it over TCP in this process. */
export async function startPgliteServer(options: PgliteServerOptions = {}): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector }, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const port = options.port ?? (await freePort());
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port,
    maxConnections: options.maxConnections ?? 32,
  });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

const MAIN = fileURLToPath(new URL('./pglite-main.ts', import.meta.url));

/** The same server as a child process (`pglite-main.ts`), for tests and runs that want it outside their own. */
export async function spawnPgliteServer(
  options: PgliteServerOptions & { readyTimeoutMs?: number } = {},
): Promise<PgliteServer & { process: ServiceProcess }> {
  const port = options.port ?? (await freePort());
  const args = [`--port=${port}`, `--max-connections=${options.maxConnections ?? 32}`];
  if (options.dataDir) args.push(`--data-dir=${options.dataDir}`);
  const child = await spawnService({
    name: 'pglite',
    entry: MAIN,
    args,
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: process.env,
    port,
    readyPath: null,
    readyTimeoutMs: 0,
    killAfterMs: 10_000,
    outputTailChars: 16 * 1024,
  });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (!child.output().includes('pglite listening')) {
    if (child.child.exitCode !== null || Date.now() > deadline) {
      await child.stop('SIGKILL');
      throw new Error(`the PGlite server did not start:\n${child.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    process: child,
    async stop() {
      await child.stop('SIGTERM');
    },
  };
}
