import { randomUUID } from 'node:crypto';
import { startPgliteServer } from '@hindsight/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadMemoryApiConfig } from '../../src/config.ts';
import { spawnService } from '../support/process.ts';

/**
 * memory-api against a PostgreSQL without pgvector: the Debian PostgreSQL these machines run on
 * 127.0.0.1:5432 (trust auth) has none. NO_PGVECTOR_DATABASE_URL names another such server.
 */
const url = process.env.NO_PGVECTOR_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function probe(): Promise<'no-pgvector' | string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    return `no PostgreSQL answers at ${url} (${error instanceof Error ? error.message : String(error)})`;
  }
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return rows.length === 0 ? 'no-pgvector' : 'that server has pgvector';
  } finally {
    await client.end();
  }
}

const server = await probe();
if (server !== 'no-pgvector') {
  console.warn(`SKIPPED: memory-api start-up against a PostgreSQL without pgvector — ${server}`);
}

async function exitOf(env: Record<string, string>) {
  const service = await spawnService(
    'memory-api',
    { REDIS_PREFIX: `test-${randomUUID()}`, VECTOR_STORE: 'postgres', ...env },
    { waitReady: false },
  );
  const code = await Promise.race([service.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
  if (code === 'hung') await service.stop('SIGKILL');
  return { code, output: service.output() };
}

describe('memory-api start-up on PostgreSQL', () => {
  it.skipIf(server !== 'no-pgvector')(
    `says the vector extension is missing and exits (${server === 'no-pgvector' ? url : `skipped: ${server}`})`,
    async () => {
      const { code, output } = await exitOf({ DATABASE_URL: url });
      expect(code).toBe(1);
      expect(output).toMatch(
        /memory-api failed to start: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:5432\/postgres has no pgvector/,
      );
      expect(output).toMatch(/"vector" extension is not available on that server.*Install pgvector/);
      // Nothing was created on the way out.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'hindsight'");
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    },
  );

  it('names DATABASE_URL when VECTOR_STORE=postgres has none, and exits', async () => {
    const { code, output } = await exitOf({});
    expect(code).not.toBe(0);
    expect(output).toMatch(/DATABASE_URL.*is required when VECTOR_STORE=postgres/);
  });

  it('says where it could not connect, without the password, and exits', async () => {
    const { code, output } = await exitOf({
      DATABASE_URL: 'postgres://hindsight:s3cret-pw@127.0.0.1:1/hindsight',
    });
    expect(code).toBe(1);
    expect(output).toMatch(
      /cannot reach PostgreSQL at postgres:\/\/hindsight@127\.0\.0\.1:1\/hindsight \(DATABASE_URL\)/,
    );
    expect(output).not.toContain('s3cret-pw');
  });

  it('refuses to fall back to plain text when DATABASE_SSL asks for TLS and the server has none', async () => {
    const server = await startPgliteServer();
    try {
      const { code, output } = await exitOf({ DATABASE_URL: server.url, DATABASE_SSL: 'require' });
      expect(code).toBe(1);
      expect(output).toMatch(
        /cannot reach PostgreSQL at .* \(DATABASE_URL\): The server does not support SSL connections/,
      );
    } finally {
      await server.stop();
    }
  });

  it('names conflicting or unusable TLS settings before connecting', () => {
    const base = { VECTOR_STORE: 'postgres', DATABASE_URL: 'postgres://h@db:5432/h' };
    expect(() =>
      loadMemoryApiConfig({ ...base, DATABASE_URL: `${base.DATABASE_URL}?sslmode=require`, DATABASE_SSL: 'disable' }),
    ).toThrow(/DATABASE_SSL.*sslmode in DATABASE_URL both set TLS/);
    expect(() => loadMemoryApiConfig({ ...base, DATABASE_SSL_CA_FILE: '/ca.pem' })).toThrow(
      /DATABASE_SSL_CA_FILE.*only with DATABASE_SSL=verify-full/,
    );
    expect(() => loadMemoryApiConfig({ ...base, DATABASE_SSL: 'prefer' })).toThrow(/DATABASE_SSL/);
    expect(() => loadMemoryApiConfig({ ...base, DATABASE_SCHEMA: 'Robert"; DROP' })).toThrow(/DATABASE_SCHEMA/);
    expect(
      loadMemoryApiConfig({ ...base, DATABASE_SSL: 'verify-full', DATABASE_SSL_CA_FILE: '/ca.pem' }),
    ).toMatchObject({
      DATABASE_SSL: 'verify-full',
      DATABASE_POOL_SIZE: 10,
      DATABASE_STATEMENT_TIMEOUT_MS: 5000,
      DATABASE_SCHEMA: 'hindsight',
    });
  });
});
