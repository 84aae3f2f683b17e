import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';
import { callTool, textOf } from './support.ts';

const BIN = fileURLToPath(new URL('../../bin/hindsight-mcp.mjs', import.meta.url));

let api: TestApp;
let url: string;

beforeAll(async () => {
  api = await startTestApp(TENANT_KEYS);
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const address = api.app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await api?.close();
});

/** `hindsight-mcp` as a real child process speaking MCP on its stdin/stdout. */
async function spawnStdio(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { PATH: process.env.PATH ?? '', HINDSIGHT_URL: url, LOG_LEVEL: 'info', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'hindsight-stdio-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('hindsight-mcp (stdio) as a child process', () => {
  it('answers tools/list and memory_search against memory-api, logging to stderr only', async () => {
    const stored = await api.app.inject({
      method: 'POST',
      url: '/v1/memories',
      headers: auth('key-acme'),
      payload: { content: 'Allergic to peanuts', memory_type: 'fact', user_id: 'stdio-carol' },
    });
    expect(stored.statusCode).toBe(201);

    const { client, stderr } = await spawnStdio({ HINDSIGHT_API_KEY: 'key-acme', HINDSIGHT_USER_ID: 'stdio-carol' });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['memory_forget', 'memory_search', 'memory_write']);

      const found = await callTool(client, 'memory_search', { query: 'does the user have food allergies?' });
      expect(found.isError).toBeFalsy();
      const response = found.structuredContent as { results: Array<{ content: string }>; context: string };
      expect(response.results.map((r) => r.content)).toContain('Allergic to peanuts');
      expect(response.context).toMatch(/fact: Allergic to peanuts/);

      const written = await callTool(client, 'memory_write', { content: 'Drinks oat milk', memory_type: 'preference' });
      const { id } = written.structuredContent as { id: string };
      const record = await api.app.inject({ method: 'GET', url: `/v1/memories/${id}`, headers: auth('key-acme') });
      expect(record.json()).toMatchObject({ user_id: 'stdio-carol', source: { kind: 'mcp' } });

      await callTool(client, 'memory_write', {
        content: 'Drafting a toast',
        memory_type: 'working',
        session_id: 'stdio-s1',
      });
      const forgotten = await callTool(client, 'memory_forget', { session_id: 'stdio-s1' });
      expect(forgotten.structuredContent).toEqual({ count: 0, ids: [], dry_run: false, working_turns: 1 });
      const turns = await api.app.inject({
        method: 'GET',
        url: '/v1/sessions/stdio-s1/turns',
        headers: auth('key-acme'),
      });
      expect(turns.json().turns).toEqual([]);

      // The protocol stream stayed clean (the client parsed every line); the log line went to stderr.
      expect(stderr()).toMatch(/hindsight MCP server ready on stdio/);
    } finally {
      await client.close();
    }
  });

  it('turns a wrong API key into an actionable isError result and keeps serving', async () => {
    const { client } = await spawnStdio({ HINDSIGHT_API_KEY: 'not-a-key', HINDSIGHT_USER_ID: 'stdio-carol' });
    try {
      const refused = await callTool(client, 'memory_search', { query: 'allergies' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/memory_search refused: .*API key.*HINDSIGHT_API_KEY/);
      const again = await callTool(client, 'memory_search', { query: 'allergies', top_k: 10_000 });
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/top_k must be at most 100/);
    } finally {
      await client.close();
    }
  });

  it('answers a tools/call whose arguments are not an object actionably, without the validator issue list', async () => {
    const { client } = await spawnStdio({ HINDSIGHT_API_KEY: 'key-acme', HINDSIGHT_USER_ID: 'stdio-carol' });
    try {
      // Sent as a client would put it on the wire; the SDK's callTool types would not let a string through.
      const answer = await client.request(
        {
          method: 'tools/call',
          params: { name: 'memory_search', arguments: 'x' as unknown as Record<string, unknown> },
        },
        CallToolResultSchema,
      );
      expect(answer.isError).toBe(true);
      expect(textOf(answer as CallToolResult)).toMatch(
        /^memory_search refused: arguments must be a JSON object of the tool's parameters \(got a string\)/,
      );
      expect(JSON.stringify(answer)).not.toMatch(/invalid_type|"expected"|"path"/);
      expect((await callTool(client, 'memory_search', { query: 'allergies' })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('reports memory-api being down as temporarily unavailable, without internal detail', async () => {
    const { client } = await spawnStdio({ HINDSIGHT_URL: 'http://127.0.0.1:9', HINDSIGHT_API_KEY: 'key-acme' });
    try {
      const down = await callTool(client, 'memory_search', { query: 'allergies' });
      expect(down.isError).toBe(true);
      expect(textOf(down)).toMatch(/temporarily unavailable/);
      expect(textOf(down)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|fetch failed/);
    } finally {
      await client.close();
    }
  });
});
