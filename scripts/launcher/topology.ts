import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { describeTarget } from '../../services/memory-api/src/adapters/store/postgres/database.ts';

/** One service of the suite as the launcher runs it: a Node process on loopback. */
export interface ServiceSpec {
  name: string;
  /** services/<name>/src/main.ts */
  entry: string;
  cwd: string;
  port: number;
  /** The launcher's variable that moves this service to another port. */
  portVariable: string;
  /** The variables this service gets on top of the launcher's own environment. */
  env: Record<string, string>;
}

export interface LaunchSettings {
  root: string;
  dataDir: string;
  redisUrl: string;
  /** The long-term store memory-api opens. */
  store: LongTermStore;
  /** memory-api's admin key, which the worker uses to act for each job's tenant (as in compose). */
  adminKey: string | undefined;
  ports: { agent: number; memoryApi: number; embedder: number; worker: number };
  readyTimeoutMs: number;
  /** SHUTDOWN_TIMEOUT_MS: the launcher's whole shutdown, every child included; what is still running then is killed. */
  stopTimeoutMs: number;
}

/** The embedded SQLite file (the default), Qdrant at QDRANT_URL, or PostgreSQL at DATABASE_URL. */
export type LongTermStore = { kind: 'sqlite' } | { kind: 'qdrant'; url: string } | { kind: 'postgres'; url: string };

const LOOPBACK = '127.0.0.1';

/** The launcher's port variables, named like compose's host ports. */
const PORT_VARIABLES = {
  agent: 'AGENT_PORT',
  memoryApi: 'MEMORY_API_PORT',
  embedder: 'EMBEDDER_PORT',
  worker: 'WORKER_PORT',
} as const satisfies Record<keyof LaunchSettings['ports'], string>;

/** Reads the launcher's settings from its environment (the same names compose uses for host ports). */
export function launchSettings(root: string, env: Record<string, string | undefined>): LaunchSettings {
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
  const port = (name: string, fallback: number) => integer(name, fallback, 1, 65535);
  const dataDir = env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data';
  const adminKey = env.ADMIN_API_KEY && env.ADMIN_API_KEY !== '' ? env.ADMIN_API_KEY : undefined;
  // With tenant keys every call needs one: a worker started without the admin key would fail every job.
  if ((env.API_KEYS || env.API_KEYS_FILE) && !adminKey) {
    throw new Error(
      'API_KEYS (or API_KEYS_FILE) is set but ADMIN_API_KEY is not: the consolidation worker acts for every tenant with the admin key, as in compose; set ADMIN_API_KEY too',
    );
  }
  return {
    root,
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(root, dataDir),
    redisUrl: env.REDIS_URL && env.REDIS_URL !== '' ? env.REDIS_URL : `redis://${LOOPBACK}:6379`,
    store: longTermStore(env),
    adminKey,
    ports: {
      agent: port(PORT_VARIABLES.agent, 8000),
      memoryApi: port(PORT_VARIABLES.memoryApi, 8001),
      embedder: port(PORT_VARIABLES.embedder, 8002),
      worker: port(PORT_VARIABLES.worker, 8003),
    },
    readyTimeoutMs: integer('LAUNCH_READY_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    stopTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
  };
}

/**
 * VECTOR_STORE names the store when set (postgres needs DATABASE_URL, qdrant QDRANT_URL); unset,
 * QDRANT_URL alone means Qdrant and anything else the embedded SQLite file.
 */
function longTermStore(env: Record<string, string | undefined>): LongTermStore {
  const given = (name: string) => (env[name] && env[name] !== '' ? env[name] : undefined);
  const qdrantUrl = given('QDRANT_URL');
  const databaseUrl = given('DATABASE_URL');
  switch (given('VECTOR_STORE')) {
    case undefined:
      return qdrantUrl ? { kind: 'qdrant', url: qdrantUrl } : { kind: 'sqlite' };
    case 'sqlite':
      return { kind: 'sqlite' };
    case 'qdrant':
      if (!qdrantUrl) throw new Error('VECTOR_STORE=qdrant needs QDRANT_URL (e.g. http://127.0.0.1:6333)');
      return { kind: 'qdrant', url: qdrantUrl };
    case 'postgres':
      if (!databaseUrl) {
        throw new Error(
          'VECTOR_STORE=postgres needs DATABASE_URL (e.g. postgres://hindsight:secret@127.0.0.1:5432/hindsight, a server with pgvector)',
        );
      }
      return { kind: 'postgres', url: databaseUrl };
    default:
      throw new Error(`VECTOR_STORE must be sqlite, qdrant or postgres (got "${env.VECTOR_STORE}")`);
  }
}

/** What memory-api is told about its store (the other DATABASE_* and QDRANT_* settings pass through as set). */
function storeEnv(store: LongTermStore): Record<string, string> {
  switch (store.kind) {
    case 'sqlite':
      return { VECTOR_STORE: 'sqlite' };
    case 'qdrant':
      return { VECTOR_STORE: 'qdrant', QDRANT_URL: store.url };
    case 'postgres':
      return { VECTOR_STORE: 'postgres', DATABASE_URL: store.url };
  }
}

/** The store in words for the launcher's own lines, without a password. */
export function describeStore(store: LongTermStore, dataDir: string): string {
  switch (store.kind) {
    case 'sqlite':
      return `SQLite file ${join(dataDir, 'memory.db')}`;
    case 'qdrant':
      return `Qdrant at ${store.url}`;
    case 'postgres':
      return `PostgreSQL at ${describeTarget(store.url)}`;
  }
}

/**
 * The suite in dependency order, wired like docker-compose.yml wires it: the
 * embedder first, memory-api on top of it and Redis, then the worker and the
 * agent, which reach memory only through memory-api.
 */
export function planServices(settings: LaunchSettings): ServiceSpec[] {
  const url = (port: number) => `http://${LOOPBACK}:${port}`;
  const { ports } = settings;
  const spec = (name: string, role: keyof typeof ports, env: Record<string, string>): ServiceSpec => ({
    name,
    entry: join(settings.root, 'services', name, 'src', 'main.ts'),
    cwd: join(settings.root, 'services', name),
    port: ports[role],
    portVariable: PORT_VARIABLES[role],
    env: { HOST: LOOPBACK, PORT: String(ports[role]), ...env },
  });
  return [
    spec('embedder', 'embedder', { REDIS_URL: settings.redisUrl }),
    spec('memory-api', 'memoryApi', {
      DATA_DIR: settings.dataDir,
      REDIS_URL: settings.redisUrl,
      EMBEDDER_URL: url(ports.embedder),
      ...storeEnv(settings.store),
    }),
    spec('consolidation-worker', 'worker', {
      REDIS_URL: settings.redisUrl,
      MEMORY_API_URL: url(ports.memoryApi),
      ...(settings.adminKey ? { MEMORY_API_KEY: settings.adminKey } : {}),
    }),
    spec('agent', 'agent', { MEMORY_API_URL: url(ports.memoryApi) }),
  ];
}

/** Services whose code is present; the others are reported and left out. */
export function presentServices(specs: readonly ServiceSpec[]): { present: ServiceSpec[]; missing: ServiceSpec[] } {
  const present: ServiceSpec[] = [];
  const missing: ServiceSpec[] = [];
  for (const spec of specs) (existsSync(spec.entry) ? present : missing).push(spec);
  return { present, missing };
}
