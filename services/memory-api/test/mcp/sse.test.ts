import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';
import { callTool, textOf } from './support.ts';

/** A real SDK client on the legacy HTTP+SSE transport; `sessionUrls` collects the URLs its messages went to. */
async function connectSse(base: string, headers: Record<string, string>) {
  const sessionUrls: string[] = [];
  const client = new McpClient({ name: 'hindsight-sse-test', version: '0.0.0' });
  const transport = new SSEClientTransport(new URL('/sse', base), {
    requestInit: { headers },
    fetch: (url, init) => {
      if (String(url).includes('/messages')) sessionUrls.push(String(url));
      return fetch(url, init);
    },
  });
  await client.connect(transport);
  return { client, sessionUrls };
}

/** Opens GET /sse by hand and reads the endpoint event: the session's message URL. */
async function openRawStream(base: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const response = await fetch(`${base}/sse`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  if (!response.ok || !response.body) return { response, abort, endpoint: undefined, reader: undefined };
  const reader = response.body.getReader();
  let text = '';
  while (!/event: endpoint\ndata: (\S+)\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(text)?.[1];
  return { response, abort, endpoint, reader };
}

async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let api: TestApp;
let url: string;
let acme: Client;
let acmeUrls: string[];

beforeAll(async () => {
  api = await startTestApp(TENANT_KEYS);
  url = await listen(api);
  ({ client: acme, sessionUrls: acmeUrls } = await connectSse(url, { ...auth('key-acme'), 'x-user-id': 'sse-alice' }));
});

afterAll(async () => {
  await acme?.close();
  await api?.close();
});

describe('MCP over the legacy HTTP+SSE transport (GET /sse, POST /messages)', () => {
  it('lists the same three tools, with their schemas, as /mcp', async () => {
    const { tools } = await acme.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['memory_forget', 'memory_search', 'memory_write']);
    const search = tools.find((t) => t.name === 'memory_search');
    expect(search?.inputSchema.required).toEqual(['query']);
    expect(search?.annotations).toMatchObject({ readOnlyHint: true });
    expect(acmeUrls[0]).toMatch(new RegExp(`^${url}/messages\\?sessionId=[0-9a-f-]{36}$`));
  });

  it('writes, finds and forgets a memory for the user of X-User-Id, confined to the tenant', async () => {
    const written = await callTool(acme, 'memory_write', {
      content: 'Takes the night train to Vienna every December',
      memory_type: 'fact',
    });
    expect(written.isError).toBeFalsy();
    const { id } = written.structuredContent as { id: string };
    const stored = await api.app.inject({ method: 'GET', url: `/v1/memories/${id}`, headers: auth('key-acme') });
    expect(stored.json()).toMatchObject({ user_id: 'sse-alice', source: { kind: 'mcp' } });

    const found = await callTool(acme, 'memory_search', { query: 'how does the user travel to Vienna?' });
    expect((found.structuredContent as { results: Array<{ id: string }> }).results.map((r) => r.id)).toContain(id);

    const { client: globex } = await connectSse(url, { ...auth('key-globex'), 'x-user-id': 'sse-alice' });
    try {
      const foreign = await callTool(globex, 'memory_search', { query: 'night train to Vienna' });
      expect((foreign.structuredContent as { results: unknown[] }).results).toEqual([]);
    } finally {
      await globex.close();
    }

    const forgotten = await callTool(acme, 'memory_forget', { memory_id: id });
    expect(forgotten.structuredContent).toMatchObject({ count: 1, ids: [id] });
    const bad = await callTool(acme, 'memory_search', { top_k: 3 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/query/);
  });

  it('needs the API key to open a stream and to send a message', async () => {
    const noKey = await fetch(`${url}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const noKeyMessage = await post(acmeUrls[0] as string, {}, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(noKeyMessage.status).toBe(401);
  });

  it("will not carry another tenant's or another user's messages into a session", async () => {
    const message = { jsonrpc: '2.0', id: 99, method: 'tools/list' };
    const otherTenant = await post(acmeUrls[0] as string, auth('key-globex'), message);
    expect(otherTenant.status).toBe(404);
    expect(((await otherTenant.json()) as { error: { code: string } }).error.code).toBe('mcp_session_not_found');
    const otherUser = await post(acmeUrls[0] as string, { ...auth('key-acme'), 'x-user-id': 'sse-mallory' }, message);
    expect(otherUser.status).toBe(403);
    expect(((await otherUser.json()) as { error: { message: string } }).error.message).toMatch(/X-User-Id differs/);
  });

  it('answers a body that is not one JSON-RPC message with 400, and the session keeps serving', async () => {
    for (const body of [{ hello: 'world' }, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], 'tools/list', 42]) {
      const answer = await post(acmeUrls[0] as string, auth('key-acme'), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/JSON-RPC/);
    }
    const missing = await fetch(`${url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth('key-acme') },
      body: '{}',
    });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/sessionId/);
    expect((await acme.listTools()).tools).toHaveLength(3);
  });

  it('answers only known Host names on both routes (DNS-rebinding protection)', async () => {
    const { request } = await import('node:http');
    const port = Number(new URL(url).port);
    const ask = (method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method,
            headers: { host: `attacker.example:${port}`, ...auth('key-acme'), 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : undefined);
      });
    expect(await ask('GET', '/sse')).toBe(403);
    expect(await ask('POST', new URL(acmeUrls[0] as string).pathname + new URL(acmeUrls[0] as string).search)).toBe(
      403,
    );
  });

  it('ends a session when its client goes: the stream is gone and its messages are refused', async () => {
    const { client, sessionUrls } = await connectSse(url, auth('key-acme'));
    await client.listTools();
    const sessionUrl = sessionUrls[0] as string;
    await client.close();
    await eventually(
      async () => (await post(sessionUrl, auth('key-acme'), { jsonrpc: '2.0', id: 1, method: 'ping' })).status === 404,
      'the closed session to be forgotten',
    );

    const raw = await openRawStream(url, auth('key-acme'));
    expect(raw.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(raw.endpoint).toMatch(/^\/messages\?sessionId=/);
    raw.abort.abort();
    await eventually(
      async () =>
        (await post(`${url}${raw.endpoint}`, auth('key-acme'), { jsonrpc: '2.0', id: 1, method: 'ping' })).status ===
        404,
      'the dropped stream to be forgotten',
    );
  });

  it('a replica that does not hold the session says so and how to route, and closing a replica ends its streams', async () => {
    const replica = await startTestApp(TENANT_KEYS);
    const replicaUrl = await listen(replica);
    try {
      const sessionUrl = new URL(acmeUrls[0] as string);
      const elsewhere = await post(`${replicaUrl}${sessionUrl.pathname}${sessionUrl.search}`, auth('key-acme'), {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/list',
      });
      expect(elsewhere.status).toBe(404);
      const { error } = (await elsewhere.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('mcp_session_not_found');
      expect(error.message).toMatch(
        /^no MCP SSE session .* is open on this memory-api replica.*GET \/sse.*sticky sessions.*\/mcp/,
      );
      // The replica that holds it still answers.
      expect((await acme.listTools()).tools).toHaveLength(3);

      const onReplica = await openRawStream(replicaUrl, auth('key-acme'));
      expect(onReplica.endpoint).toBeDefined();
      const ended = (async () => {
        for (;;) if ((await onReplica.reader?.read())?.done !== false) return true;
      })();
      await replica.app.close();
      expect(await ended).toBe(true);
    } finally {
      await replica.close();
    }
  });
});
