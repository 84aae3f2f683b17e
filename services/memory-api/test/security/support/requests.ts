import fc from 'fast-check';
import {
  anyJson,
  DEEP_PLACEHOLDER,
  deeplyNestedJson,
  hostileText,
  propertyNames,
  serialise,
  validValue,
} from './arbitraries.ts';
import type { IdPools } from './fixtures.ts';
import { percentEncode, type RawRequest } from './http.ts';
import type { JsonSchema, Operation } from './openapi.ts';

export interface Credentials {
  tenantKey: string;
  /** The tenant `tenantKey` belongs to (what the admin key names in X-Tenant-Id). */
  tenant: string;
  adminKey: string;
}

/** A generated request, its operation and the mutation that made it, for failure messages. */
export interface FuzzCase {
  operation: string;
  request: RawRequest;
  mutation: string;
}

/** Media types other than JSON, by operation: the route reads its body itself. */
const RAW_BODIES: Record<string, 'ndjson' | 'jsonrpc'> = {
  'POST /v1/import': 'ndjson',
  'POST /mcp': 'jsonrpc',
};

/** Bytes that are not UTF-8 inside a JSON string. */
const INVALID_UTF8 = Buffer.from([
  0x7b, 0x22, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d,
]);

/** One body just past BODY_LIMIT_BYTES (4 MiB), built once. */
const OVERSIZED_BODY = JSON.stringify({ content: 'x'.repeat(4.5 * 1024 * 1024) });

const RAW_JSON_TEXTS = [
  '',
  '{',
  '{"content":',
  'nul',
  '\uFEFF{"content":"with a byte order mark"}',
  '{"__proto__":{"polluted":true},"content":"prototype"}',
  '{"constructor":{"prototype":{"polluted":true}},"content":"constructor"}',
  '{"content":"twice","content":5}',
  '[{"content":"an array at the root"}]',
  '"just a string"',
  '1e999',
  '{"content":"\\ud800"}',
  '{"content":"\\u0000"}',
];

/** Owner and context fields of the write and read contracts. */
export const ID_FIELDS = ['user_id', 'session_id', 'agent_id'];

/** Which pool fills a path parameter, from the route's own words. */
function poolFor(path: string, pools: IdPools): string[] {
  if (path.startsWith('/v1/memories')) return pools.memoryIds;
  if (path.startsWith('/v1/sessions')) return pools.sessionIds;
  if (path.startsWith('/v1/users')) return pools.userIds;
  if (path.startsWith('/v1/jobs')) return pools.jobIds;
  return [...pools.memoryIds, ...pools.sessionIds, ...pools.userIds, ...pools.jobIds];
}

/** Header values are bytes: UTF-8 text travels as its bytes; control characters but tab cannot travel at all. */
function headerSafe(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

function withPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? 'x');
}

function pathValue(op: Operation, pools: IdPools, schema: JsonSchema): fc.Arbitrary<string> {
  const known = poolFor(op.path, pools);
  const arbitraries: Array<fc.Arbitrary<string>> = [
    hostileText.filter((s) => s.length > 0).map(percentEncode),
    (validValue(schema, hostileText) as fc.Arbitrary<unknown>).map((v) => percentEncode(String(v))),
    fc.constantFrom('%', '%zz', '%00', '%2F', '..', '%2e%2e', '%ED%A0%80', '%C0%AF', encodeURIComponent('a/b')),
  ];
  if (known.length > 0) arbitraries.push(fc.constantFrom(...known).map(percentEncode));
  return fc.oneof(...arbitraries);
}

function queryString(op: Operation): fc.Arbitrary<string> {
  if (op.query.length === 0) {
    return fc.oneof(
      fc.constant(''),
      hostileText.map((t) => `?${percentEncode(t)}=${percentEncode(t)}`),
    );
  }
  const pair = (name: string, schema: JsonSchema) =>
    fc
      .oneof(
        { weight: 3, arbitrary: (validValue(schema, hostileText) as fc.Arbitrary<unknown>).map(String) },
        { weight: 2, arbitrary: hostileText },
        { weight: 1, arbitrary: fc.constantFrom('abc', '-1', '1e400', '0', '', '[]', 'true') },
      )
      .map((value) => `${name}=${percentEncode(value)}`);
  return fc
    .subarray(op.query, { minLength: 0 })
    .chain((chosen) =>
      chosen.length === 0
        ? fc.constant([] as string[])
        : fc
            .tuple(...chosen.map((p) => fc.tuple(pair(p.name, p.schema), fc.option(pair(p.name, p.schema)))))
            // Some names come twice (`?user_id=a&user_id=b`): a parser may turn them into an array.
            .map((pairs) => pairs.flatMap(([first, again]) => (again === null ? [first] : [first, again]))),
    )
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));
}

interface Body {
  body?: string | Buffer;
  contentType?: string;
  mutation: string;
}

function jsonBody(value: unknown, mutation: string, deep?: string): Body {
  return { body: serialise(value, deep), contentType: 'application/json', mutation };
}

function setProperty(value: unknown, name: string, replacement: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const items = (value as { items?: unknown }).items;
  if (Array.isArray(items) && items.length > 0 && !(name in (value as object))) {
    // A batch: the mutation goes into one of its items, which is where the fields are.
    const [first, ...rest] = items;
    return { ...value, items: [setProperty(first, name, replacement), ...rest] };
  }
  return { ...value, [name]: replacement };
}

function removeProperty(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { [name]: _gone, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** Bodies for a route with a JSON schema: valid ones with odd text, and every way to break them. */
function schemaBodies(schema: JsonSchema, op: Operation): fc.Arbitrary<Body> {
  const valid = validValue(schema, hostileText);
  const names = propertyNames(schema);
  const name = names.length > 0 ? fc.constantFrom(...names) : fc.constant('content');
  const required = schema.required ?? [];
  const strategies: Array<{ weight: number; arbitrary: fc.Arbitrary<Body> }> = [
    { weight: 6, arbitrary: valid.map((v) => jsonBody(v, 'valid shape, odd text')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, name, anyJson)
        .map(([v, n, wrong]) => jsonBody(setProperty(v, n, wrong), `${n}: wrong type`)),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, name, hostileText)
        .map(([v, n, text]) => jsonBody(setProperty(v, n, text), `${n}: hostile text`)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(40, 1300, 5000), fc.constantFrom('object' as const, 'array' as const), name)
        .map(([v, depth, kind, n]) =>
          jsonBody(
            setProperty(v, n === 'content' ? 'metadata' : n, DEEP_PLACEHOLDER),
            `${n}: nested ${depth} deep`,
            deeplyNestedJson(depth, kind),
          ),
        ),
    },
    { weight: 1, arbitrary: valid.map((v) => jsonBody(setProperty(v, 'unexpected_field', 1), 'unknown field')) },
    { weight: 1, arbitrary: anyJson.map((v) => jsonBody(v, 'not the schema at the root')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...RAW_JSON_TEXTS).map((text) => ({
        body: text,
        contentType: 'application/json',
        mutation: `raw text ${JSON.stringify(text.slice(0, 30))}`,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ body: INVALID_UTF8, contentType: 'application/json', mutation: 'invalid UTF-8' }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'),
        )
        .map(([v, type]) => ({ body: JSON.stringify(v), contentType: type, mutation: `content-type ${type}` })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        body: OVERSIZED_BODY,
        contentType: 'application/json',
        mutation: 'body over the size limit',
      }),
    },
    { weight: 1, arbitrary: deeplyNestedRoot() },
  ];
  const ids = names.filter((n) => ID_FIELDS.includes(n));
  if (ids.length > 0) {
    // Ids become SQL values, Redis key parts and vector partitions: the likeliest place for odd text to break.
    strategies.push({
      weight: 3,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...ids), hostileText)
        .map(([v, n, text]) => jsonBody(setProperty(v, n, text), `${n}: hostile id`)),
    });
  }
  if (names.includes('metadata')) {
    strategies.push({
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(33, 1300, 5000), fc.constantFrom('object' as const, 'array' as const))
        .map(([v, depth, kind]) =>
          jsonBody(
            setProperty(v, 'metadata', { nested: DEEP_PLACEHOLDER }),
            `metadata: nested ${depth} deep`,
            deeplyNestedJson(depth, kind),
          ),
        ),
    });
  }
  if (required.length > 0) {
    strategies.push({
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...required))
        .map(([v, n]) => jsonBody(removeProperty(v, n), `${n}: missing`)),
    });
  }
  if (op.bodyRequired) strategies.push({ weight: 1, arbitrary: fc.constant({ mutation: 'no body' }) });
  return fc.oneof(...strategies);
}

function deeplyNestedRoot(): fc.Arbitrary<Body> {
  return fc.constantFrom(2000, 10_000).map((depth) => ({
    body: `${'['.repeat(depth)}${']'.repeat(depth)}`,
    contentType: 'application/json',
    mutation: `arrays ${depth} deep at the root`,
  }));
}

/** An export line a client could send back, or a broken one. */
function ndjsonLine(pools: IdPools): fc.Arbitrary<string> {
  const record = fc.record(
    {
      id: fc.oneof(fc.uuid(), fc.constantFrom(...(pools.memoryIds.length > 0 ? pools.memoryIds : ['x'])), hostileText),
      content: fc.oneof(hostileText, fc.string({ minLength: 1, maxLength: 60 })),
      layer: fc.constantFrom('semantic', 'episodic', 'working', 'nope'),
      category: fc.constantFrom('fact', 'preference', 'summary', 'NOT A CATEGORY'),
      user_id: fc.oneof(fc.constantFrom(...(pools.userIds.length > 0 ? pools.userIds : ['u'])), hostileText),
      tags: fc.oneof(fc.array(hostileText, { maxLength: 3 }), anyJson),
      metadata: fc.oneof(fc.constant({}), anyJson, fc.constant(DEEP_PLACEHOLDER)),
      confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), anyJson),
      status: fc.constantFrom('active', 'superseded', 'archived', 'quarantined', 'deleted'),
      created_at: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        hostileText,
      ),
      occurred_at: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        anyJson,
      ),
    },
    { requiredKeys: ['content'] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: record.map((r) => serialise(r, deeplyNestedJson(1300, 'object'))) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '"text"', '{"content":"\\ud800"}', '\u0000') },
    { weight: 1, arbitrary: hostileText },
  );
}

function ndjsonBodies(pools: IdPools): fc.Arbitrary<Body> {
  return fc.oneof(
    fc
      .array(ndjsonLine(pools), { minLength: 0, maxLength: 6 })
      .map((lines) => ({ body: lines.join('\n'), contentType: 'application/x-ndjson', mutation: 'ndjson lines' })),
    fc.constant({ body: INVALID_UTF8, contentType: 'application/x-ndjson', mutation: 'ndjson: invalid UTF-8' }),
    fc.constant({ body: '{"content":"x"}', contentType: 'application/json', mutation: 'ndjson route, JSON type' }),
  );
}

const TOOL_NAMES = ['memory_write', 'memory_search', 'memory_forget'];
const TOOL_FIELDS = [
  'content',
  'memory_type',
  'query',
  'top_k',
  'tags',
  'memory_id',
  'session_id',
  'before',
  'user_id',
  'time_range',
  'token_budget',
  'ttl_seconds',
  'category',
  'memory_types',
];

function jsonRpcBodies(pools: IdPools): fc.Arbitrary<Body> {
  const args = fc.oneof(
    fc.dictionary(
      fc.constantFrom(...TOOL_FIELDS),
      fc.oneof(hostileText, anyJson, fc.constantFrom(...(pools.memoryIds.length > 0 ? pools.memoryIds : ['x']))),
    ),
    anyJson,
    fc.constant(DEEP_PLACEHOLDER),
  );
  const call = fc.record({
    jsonrpc: fc.constantFrom('2.0', '1.0'),
    id: fc.oneof(fc.integer(), hostileText, fc.constant(null)),
    method: fc.constantFrom(
      'tools/call',
      'tools/call',
      'tools/call',
      'tools/list',
      'initialize',
      'ping',
      'resources/read',
      'nope',
    ),
    params: fc.oneof(
      fc.record({ name: fc.oneof(fc.constantFrom(...TOOL_NAMES), hostileText), arguments: args }),
      anyJson,
    ),
  });
  return fc.oneof(
    { weight: 5, arbitrary: call.map((c) => jsonBody(c, `json-rpc ${c.method}`, deeplyNestedJson(1300, 'object'))) },
    { weight: 1, arbitrary: fc.array(call, { minLength: 1, maxLength: 3 }).map((b) => jsonBody(b, 'json-rpc batch')) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...RAW_JSON_TEXTS)
        .map((text) => ({ body: text, contentType: 'application/json', mutation: 'json-rpc raw text' })),
    },
  );
}

function bodies(op: Operation, pools: IdPools): fc.Arbitrary<Body> {
  const raw = RAW_BODIES[op.name];
  if (raw === 'ndjson') return ndjsonBodies(pools);
  if (raw === 'jsonrpc') return jsonRpcBodies(pools);
  if (op.body) return schemaBodies(op.body, op);
  if (op.method === 'GET' || op.method === 'DELETE') {
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant({ mutation: 'no body' }) },
      { weight: 1, arbitrary: anyJson.map((v) => jsonBody(v, 'a body where none is read')) },
    );
  }
  return fc.oneof(
    fc.constant({ mutation: 'no body' }),
    anyJson.map((v) => jsonBody(v, 'a body where none is declared')),
  );
}

/** Who the request claims to be: mostly the tenant, sometimes nobody, a wrong key or the admin acting for someone. */
function authHeaders(credentials: Credentials): fc.Arbitrary<{ headers: Record<string, string>; who: string }> {
  return fc.oneof(
    {
      weight: 14,
      arbitrary: fc.constant({ headers: { authorization: `Bearer ${credentials.tenantKey}` }, who: 'tenant' }),
    },
    { weight: 2, arbitrary: fc.constant({ headers: {}, who: 'no key' }) },
    {
      weight: 1,
      arbitrary: hostileText.map((k) => ({ headers: { authorization: headerSafe(`Bearer ${k}`) }, who: 'wrong key' })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ headers: { 'x-api-key': credentials.tenantKey }, who: 'tenant (X-API-Key)' }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ headers: { authorization: `Bearer ${credentials.adminKey}` }, who: 'admin' }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.constant(credentials.tenant), hostileText).map((tenant) => ({
        headers: { authorization: `Bearer ${credentials.adminKey}`, 'x-tenant-id': headerSafe(tenant) || 'x' },
        who: 'admin for a tenant',
      })),
    },
  );
}

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(fc.uuid(), hostileText.map(headerSafe)),
    'x-user-id': hostileText.map(headerSafe),
    accept: fc.constantFrom('application/json, text/event-stream', '*/*', 'text/html'),
  },
  { requiredKeys: [] },
);

/** Requests for one operation of the OpenAPI document. */
export function requestsFor(op: Operation, pools: IdPools, credentials: Credentials): fc.Arbitrary<FuzzCase> {
  const params =
    op.pathParams.length === 0
      ? fc.constant({} as Record<string, string>)
      : fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathValue(op, pools, p.schema)])));
  return fc
    .tuple(params, queryString(op), bodies(op, pools), authHeaders(credentials), extraHeaders)
    .map(([values, query, body, auth, extra]) => {
      const headers: Record<string, string> = { ...extra, ...auth.headers };
      // The MCP endpoint answers clients that accept both JSON and event streams.
      if (op.name === 'POST /mcp' && extra.accept === undefined) headers.accept = 'application/json, text/event-stream';
      if (body.contentType) headers['content-type'] = body.contentType;
      const request: RawRequest = { method: op.method, path: `${withPath(op.path, values)}${query}`, headers };
      if (body.body !== undefined) request.body = body.body;
      return { operation: op.name, request, mutation: `${body.mutation}; ${auth.who}` };
    });
}
