import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { validValue } from './arbitraries.ts';
import type { IdPools } from './fixtures.ts';
import { percentEncode, type RawRequest } from './http.ts';
import type { Operation } from './openapi.ts';

/**
 * One cross-tenant probe: the attacker's request naming the victim's identifiers, and its
 * control — the very same request naming identifiers that exist nowhere. The two must be
 * answered alike (same status and error code): a difference tells the attacker that the
 * victim's id exists (an existence oracle), even when no data comes back.
 */
export interface Probe {
  operation: string;
  request: RawRequest;
  control: RawRequest;
}

/** Identifiers that exist nowhere, shaped like the victim's. */
export function unknownIds(): IdPools {
  const tag = randomBytes(4).toString('hex');
  return {
    memoryIds: [randomUUID(), randomUUID(), randomUUID()],
    sessionIds: [`nosession-${tag}-1`, `nosession-${tag}-2`],
    userIds: [`nobody-${tag}-1`, `nobody-${tag}-2`],
    jobIds: [`consolidate-${randomBytes(12).toString('hex')}-1`],
    streamSessionIds: [randomUUID()],
    canaries: [`canary${randomBytes(6).toString('hex')}`],
  };
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;

/** The pool a path parameter of `path` names. */
function poolOf(path: string, ids: IdPools): string[] {
  if (path.startsWith('/v1/memories')) return ids.memoryIds;
  if (path.startsWith('/v1/sessions')) return ids.sessionIds;
  if (path.startsWith('/v1/users')) return ids.userIds;
  if (path.startsWith('/v1/jobs')) return ids.jobIds;
  return ids.memoryIds;
}

/**
 * Puts the identifiers into every field that names something: owners and sessions, memory ids
 * (single and lists), and the query of a search (the victim's canary word). Content stays as
 * generated, so the attacker never writes the victim's words into its own tenant.
 */
function aimAt(value: unknown, ids: IdPools, choice: number): unknown {
  if (Array.isArray(value)) return value.map((v) => aimAt(v, ids, choice));
  if (typeof value !== 'object' || value === null) return value;
  // A write's `query` is the memory's own question: only a search's query carries the victim's word.
  const isSearch = !('content' in value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'query' && !isSearch) {
      out[key] = inner;
      continue;
    }
    if (key === 'user_id') out[key] = pick(ids.userIds, choice);
    else if (key === 'session_id') out[key] = pick(ids.sessionIds, choice);
    else if (key === 'memory_id' || key === 'id') out[key] = pick(ids.memoryIds, choice);
    else if (key.endsWith('_ids') || key === 'ids') out[key] = ids.memoryIds.slice(0, 3);
    else if (key === 'query') out[key] = pick(ids.canaries, 0);
    else out[key] = aimAt(inner, ids, choice);
  }
  return out;
}

interface Shape {
  choice: number;
  body: unknown;
  query: string[];
}

function shapes(op: Operation, count: number, seed: number): Shape[] {
  const body = op.body
    ? validValue(op.body, fc.constantFrom('probe text', 'what do you know'))
    : fc.constant(undefined);
  const queryNames = op.query.map((q) => q.name);
  return fc.sample(
    fc.record({
      choice: fc.nat(64),
      body,
      query: queryNames.length > 0 ? fc.subarray(queryNames, { minLength: 1 }) : fc.constant([] as string[]),
    }),
    { seed, numRuns: count },
  );
}

function queryValue(name: string, ids: IdPools, choice: number, victimTenant: string): string {
  if (name === 'user_id') return pick(ids.userIds, choice);
  if (name === 'session_id') return pick(ids.sessionIds, choice);
  if (name === 'tenant') return victimTenant;
  if (name === 'sessionId' && ids.streamSessionIds.length > 0) return pick(ids.streamSessionIds, choice);
  if (name === 'limit') return '1000';
  if (name === 'through') return '100';
  if (name === 'memory_type') return 'semantic';
  if (name === 'status') return 'active';
  return pick(ids.memoryIds, choice);
}

/** The body of a route that reads its own media type, aimed at `ids`. */
function rawBody(
  op: Operation,
  ids: IdPools,
  choice: number,
  exported: Record<string, unknown>,
): { body: string; type: string } | undefined {
  if (op.name === 'POST /v1/import') {
    // The attacker's own export line, carrying the victim's ids: an import must not tell them apart.
    const line = (id: string) => JSON.stringify({ ...exported, id, user_id: pick(ids.userIds, choice) });
    return { body: ids.memoryIds.map(line).join('\n'), type: 'application/x-ndjson' };
  }
  if (op.name === 'POST /mcp' || op.name === 'POST /messages') {
    const calls = [
      { name: 'memory_search', arguments: { query: pick(ids.canaries, 0), user_id: pick(ids.userIds, choice) } },
      { name: 'memory_forget', arguments: { memory_id: pick(ids.memoryIds, choice) } },
      { name: 'memory_forget', arguments: { session_id: pick(ids.sessionIds, choice) } },
      {
        name: 'memory_write',
        arguments: {
          content: 'a note of another tenant',
          memory_type: 'working',
          session_id: pick(ids.sessionIds, choice),
        },
      },
    ];
    return {
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: pick(calls, choice) }),
      type: 'application/json',
    };
  }
  return undefined;
}

interface Attacker {
  key: string;
  /** One record of the attacker's own `GET /v1/export`, the template of import lines. */
  exported: Record<string, unknown>;
}

function build(op: Operation, shape: Shape, ids: IdPools, attacker: Attacker, victimTenant: string): RawRequest {
  const path = op.path.replace(/\{(\w+)\}/g, () => percentEncode(pick(poolOf(op.path, ids), shape.choice)));
  const query = shape.query.map(
    (name) => `${name}=${percentEncode(queryValue(name, ids, shape.choice, victimTenant))}`,
  );
  const headers: Record<string, string> = { authorization: `Bearer ${attacker.key}` };
  const request: RawRequest = {
    method: op.method,
    path: query.length > 0 ? `${path}?${query.join('&')}` : path,
    headers,
  };
  const raw = rawBody(op, ids, shape.choice, attacker.exported);
  if (raw) {
    headers['content-type'] = raw.type;
    request.body = raw.body;
  } else if (shape.body !== undefined) {
    headers['content-type'] = 'application/json';
    request.body = JSON.stringify(aimAt(shape.body, ids, shape.choice));
  }
  if (op.name === 'POST /mcp') {
    headers.accept = 'application/json, text/event-stream';
    headers['x-user-id'] = pick(ids.userIds, shape.choice);
  }
  return request;
}

/**
 * `count` probes of one operation, generated from its place in the route table alone (path
 * parameters, query parameters, body schema): a route added tomorrow is probed the same way.
 */
export function probesFor(
  op: Operation,
  victim: IdPools,
  attacker: Attacker,
  victimTenant: string,
  count: number,
  seed: number,
): Probe[] {
  return shapes(op, count, seed).map((shape) => ({
    operation: op.name,
    request: build(op, shape, victim, attacker, victimTenant),
    control: build(op, shape, unknownIds(), attacker, victimTenant),
  }));
}
