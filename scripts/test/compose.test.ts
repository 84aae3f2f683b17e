import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

/**
 * Static checks of docker-compose.yml and docker-compose.prod.yml (no Docker engine
 * runs here): what `docker compose config` would accept, plus the wiring rules
 * of DESIGN §1 — healthchecks, healthy-ordered depends_on, env names each
 * service's config schema actually reads, no loopback between containers,
 * consistent ports and volumes, no infra port published in production.
 */
const root = resolve(import.meta.dirname, '../..');
const BASE = 'docker-compose.yml';
const PROD = 'docker-compose.prod.yml';
const APP_PORTS: Record<string, number> = {
  agent: 8000,
  'memory-api': 8001,
  embedder: 8002,
  'consolidation-worker': 8003,
};
const INFRA = ['redis', 'qdrant', 'postgres', 'embeddings-server', 'llm-server'];
const RESET = '\u0000compose-reset';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[] | typeof RESET;
  volumes?: string[] | typeof RESET;
  networks?: string[];
  depends_on?: Record<string, { condition?: string; required?: boolean }>;
  healthcheck?: { test?: string[]; interval?: string };
  profiles?: string[];
  restart?: string;
  logging?: { driver?: string; options?: Record<string, string> };
  deploy?: { replicas?: number; resources?: { limits?: { cpus?: string; memory?: string } } };
  secrets?: string[];
  command?: string[];
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { driver?: string }>;
  secrets?: Record<string, { file?: string }>;
}

function load(file: string): ComposeFile {
  const text = readFileSync(join(root, file), 'utf8');
  // Compose's `!reset` drops what the base file set (ports lists would otherwise be appended).
  const resetTag = { tag: '!reset', collection: 'seq' as const, resolve: (seq: YAML.YAMLSeq) => seq };
  const doc = YAML.parseDocument(text, { merge: true, customTags: [resetTag] });
  expect(doc.errors, `${file} parses`).toEqual([]);
  expect(doc.warnings, `${file} has no YAML warnings`).toEqual([]);
  YAML.visit(doc, {
    Seq: (_key, node) => (node.tag === '!reset' ? doc.createNode(RESET) : undefined),
  });
  return doc.toJS() as ComposeFile;
}

/** Compose's merge of an override file: maps merge, these lists append, `!reset` clears. */
function merge(base: unknown, override: unknown, key = ''): unknown {
  if (override === RESET) return [];
  if (Array.isArray(base) && Array.isArray(override)) {
    return ['ports', 'secrets', 'expose', 'volumes'].includes(key) ? [...base, ...override] : override;
  }
  if (isMap(base) && isMap(override)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(override)) out[k] = k in base ? merge(base[k], v, k) : v === RESET ? [] : v;
    return out;
  }
  return override;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const base = load(BASE);
const prodOverride = load(PROD);
const prod = merge(base, prodOverride) as ComposeFile;
const files: Array<[string, ComposeFile]> = [
  [BASE, base],
  [`${BASE} + ${PROD}`, prod],
];

const containerPort = (mapping: string) => Number(mapping.split(':').at(-1)?.split('/')[0]);
const portList = (s: Service) => (Array.isArray(s.ports) ? s.ports : []);

describe.each(files)('%s', (_name, compose) => {
  const services = Object.entries(compose.services);

  it('runs the four services and the infrastructure', () => {
    for (const name of [...Object.keys(APP_PORTS), 'redis', 'qdrant'])
      expect(compose.services[name], name).toBeDefined();
  });

  it('gives every service a healthcheck', () => {
    for (const [name, service] of services) {
      expect(service.healthcheck?.test?.length, `${name} healthcheck`).toBeGreaterThan(1);
      expect(service.healthcheck?.test?.[0], name).toMatch(/^CMD(-SHELL)?$/);
    }
  });

  it('makes every depends_on wait for a healthy, defined service, without cycles', () => {
    for (const [name, service] of services) {
      for (const [dependency, rule] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[dependency], `${name} → ${dependency} is defined`).toBeDefined();
        expect(rule.condition, `${name} → ${dependency}`).toBe('service_healthy');
        // A dependency that only exists in an optional profile must not be required.
        if (compose.services[dependency]?.profiles) expect(rule.required, `${name} → ${dependency}`).toBe(false);
      }
    }
    const visiting = new Set<string>();
    const visit = (name: string, path: string[]) => {
      expect(visiting.has(name), `cycle ${[...path, name].join(' → ')}`).toBe(false);
      visiting.add(name);
      for (const next of Object.keys(compose.services[name]?.depends_on ?? {})) visit(next, [...path, name]);
      visiting.delete(name);
    };
    for (const [name] of services) visit(name, []);
  });

  it('starts in dependency order: Redis/Qdrant → embedder → memory-api → worker and agent', () => {
    const needs = (name: string) => Object.keys(compose.services[name]?.depends_on ?? {});
    expect(needs('embedder')).toContain('redis');
    expect(needs('memory-api')).toEqual(expect.arrayContaining(['redis', 'qdrant', 'embedder']));
    expect(needs('consolidation-worker')).toEqual(expect.arrayContaining(['redis', 'memory-api']));
    expect(needs('agent')).toContain('memory-api');
  });

  it('wires services by service name, never through loopback', () => {
    for (const [name, service] of services) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        expect(String(value ?? ''), `${name}.${key}`).not.toMatch(/:\/\/(localhost|127\.|\[?::1\]?)/);
      }
    }
    const env = (name: string) => compose.services[name]?.environment ?? {};
    expect(env('memory-api').REDIS_URL).toBe('redis://redis:6379');
    expect(env('memory-api').QDRANT_URL).toBe('http://qdrant:6333');
    expect(env('memory-api').EMBEDDER_URL).toBe(`http://embedder:${APP_PORTS.embedder}`);
    expect(env('consolidation-worker').MEMORY_API_URL).toBe(`http://memory-api:${APP_PORTS['memory-api']}`);
    expect(env('agent').MEMORY_API_URL).toBe(`http://memory-api:${APP_PORTS['memory-api']}`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's own interpolation, kept as written in the file
    expect(env('memory-api').VECTOR_STORE).toBe('${VECTOR_STORE:-qdrant}');
    expect(String(env('memory-api').DATABASE_URL)).toMatch(
      /^postgres:\/\/hindsight:\$\{POSTGRES_PASSWORD:-[^}]*\}@postgres:5432\/hindsight$/,
    );
  });

  it('listens, publishes and healthchecks each service on its one port', () => {
    for (const [name, port] of Object.entries(APP_PORTS)) {
      const service = compose.services[name] as Service;
      expect(String(service.environment?.PORT), `${name} PORT`).toBe(String(port));
      expect(service.environment?.HOST, `${name} binds beyond loopback inside its container`).toBe('0.0.0.0');
      expect(service.healthcheck?.test?.join(' '), `${name} healthcheck port`).toContain(`127.0.0.1:${port}/ready`);
      for (const mapping of portList(service)) expect(containerPort(mapping), `${name} ${mapping}`).toBe(port);
      expect(service.build?.args?.SERVICE, `${name} image`).toBe(name);
    }
  });

  it('publishes no infrastructure port (Redis, Qdrant, model servers)', () => {
    for (const name of INFRA) expect(portList(compose.services[name] ?? {}), name).toEqual([]);
  });

  it('declares every named volume it mounts and mounts every one it declares', () => {
    const declared = new Set(Object.keys(compose.volumes ?? {}));
    const used = new Set<string>();
    for (const [name, service] of services) {
      for (const mount of Array.isArray(service.volumes) ? service.volumes : []) {
        const source = mount.split(':')[0] ?? '';
        if (source.startsWith('.') || source.startsWith('/')) {
          expect(existsSync(join(root, source)), `${name} bind-mounts ${source}`).toBe(true);
          continue;
        }
        expect(declared.has(source), `${name} mounts undeclared volume ${source}`).toBe(true);
        used.add(source);
      }
    }
    if (compose === base) expect([...declared].sort()).toEqual([...used].sort());
  });

  it('puts every service on the one declared bridge network', () => {
    expect(compose.networks?.hindsight?.driver).toBe('bridge');
    for (const [name, service] of services) expect(service.networks, name).toEqual(['hindsight']);
  });

  it('keeps optional model servers behind profiles (off by default)', () => {
    expect(compose.services['embeddings-server']?.profiles).toEqual(['embeddings']);
    expect(compose.services['llm-server']?.profiles).toEqual(['llm']);
  });

  it('offers PostgreSQL + pgvector behind the postgres profile, which memory-api waits for when it runs', () => {
    const postgres = compose.services.postgres as Service;
    expect(postgres.profiles).toEqual(['postgres']);
    expect(postgres.image).toMatch(/^pgvector\/pgvector:[\w.-]+$/);
    expect(postgres.healthcheck?.test?.slice(0, 2)).toEqual(['CMD', 'pg_isready']);
    expect(postgres.environment?.POSTGRES_USER).toBe('hindsight');
    expect(postgres.environment?.POSTGRES_DB).toBe('hindsight');
    expect(compose.services['memory-api']?.depends_on?.postgres).toEqual({
      condition: 'service_healthy',
      required: false,
    });
    expect(portList(postgres)).toEqual([]);
  });
});

describe('docker-compose.yml specifics', () => {
  it('runs Redis with AOF and noeviction, persisted on a volume', () => {
    const redis = base.services.redis as Service;
    const command = redis.command?.join(' ') ?? '';
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(redis.volumes).toEqual(['redis-data:/data']);
    expect(base.services.qdrant?.volumes).toEqual(['qdrant-data:/qdrant/storage']);
    expect(base.services.postgres?.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
  });

  it('binds published development ports to the host loopback, overridable from env', () => {
    for (const [name, port] of Object.entries(APP_PORTS)) {
      const [mapping] = portList(base.services[name] as Service);
      expect(mapping, name).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\$\\{[A-Z_]+_PORT:-${port}\\}:${port}$`));
    }
  });

  it('builds every image from the one multi-stage Dockerfile with tini, a non-root user and a HEALTHCHECK', () => {
    const dockerfile = readFileSync(join(root, 'infra/Dockerfile'), 'utf8');
    for (const name of Object.keys(APP_PORTS)) expect(base.services[name]?.build?.dockerfile).toBe('infra/Dockerfile');
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(dockerfile).toContain('turbo prune');
  });
});

describe('docker-compose.prod.yml specifics', () => {
  it('publishes ports only on the gateway', () => {
    for (const [name, service] of Object.entries(prod.services)) {
      if (name === 'gateway') continue;
      expect(portList(service), name).toEqual([]);
    }
    expect(
      portList(prod.services.gateway as Service)
        .map(containerPort)
        .sort(),
    ).toEqual([8000, 8001]);
    const caddyfile = readFileSync(join(root, 'infra/Caddyfile'), 'utf8');
    expect(caddyfile).toContain('dynamic a memory-api 8001');
    expect(caddyfile).toContain('dynamic a agent 8000');
  });

  it('restarts, limits and rotates the logs of every service', () => {
    for (const [name, service] of Object.entries(prod.services)) {
      if (service.profiles) continue;
      expect(service.restart, name).toBe('unless-stopped');
      expect(service.logging?.options?.['max-size'], name).toBeDefined();
      expect(service.deploy?.resources?.limits?.memory, name).toBeDefined();
    }
  });

  it('replicates the stateless services and keeps no state in memory-api containers', () => {
    for (const name of ['memory-api', 'embedder', 'agent', 'consolidation-worker']) {
      expect(prod.services[name]?.deploy?.replicas, name).toBeGreaterThanOrEqual(2);
    }
    expect(prod.services['memory-api']?.volumes).toEqual([]);
  });

  it('takes tenant keys from a secret file and the other secrets from the env file, failing fast when unset', () => {
    const api = prod.services['memory-api'] as Service;
    expect(api.secrets).toContain('api_keys');
    expect(api.environment?.API_KEYS_FILE).toBe('/run/secrets/api_keys');
    expect(api.environment?.API_KEYS).toBe('');
    expect(prod.secrets?.api_keys?.file).toBeDefined();
    const text = readFileSync(join(root, PROD), 'utf8');
    for (const secret of ['ADMIN_API_KEY', 'MEMORY_API_KEY', 'AGENT_API_KEYS', 'QDRANT_API_KEY'])
      expect(text).toContain(`\${${secret}:?`);
  });
});

describe('.env.example', () => {
  it('documents every variable the compose files interpolate', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    for (const file of [BASE, PROD]) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, name] of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)) {
        expect(documented.has(name ?? ''), `${name} (used in ${file}) is documented in .env.example`).toBe(true);
      }
    }
  });
});

/** The zod object a service's src/config.ts exports (the schema of its environment). */
async function envSchemaKeys(service: string): Promise<string[]> {
  const path = join(root, 'services', service, 'src', 'config.ts');
  if (!existsSync(path)) throw new Error(`${path} is missing: every service reads its environment through one schema`);
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  for (const value of Object.values(module)) {
    const shape = (value as { shape?: unknown } | null)?.shape;
    if (shape && typeof shape === 'object' && typeof (value as { safeParse?: unknown }).safeParse === 'function') {
      return Object.keys(shape);
    }
  }
  throw new Error(`${path} exports no zod object schema`);
}

describe('environment names match what each service reads', () => {
  for (const service of Object.keys(APP_PORTS)) {
    it(`${service}: every variable compose sets is in its config schema`, async () => {
      const keys = new Set(await envSchemaKeys(service));
      for (const [name, compose] of files) {
        for (const variable of Object.keys(compose.services[service]?.environment ?? {})) {
          expect(keys.has(variable), `${name}: ${service} gets ${variable}, which its schema does not read`).toBe(true);
        }
      }
    });
  }
});
