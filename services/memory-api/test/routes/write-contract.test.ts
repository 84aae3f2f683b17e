import type { MemoryRecord } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, textOf } from '../mcp/support.ts';
import { type SecurityApp, startSecurityApp } from '../security/support/app.ts';
import { deeplyNestedJson } from '../security/support/arbitraries.ts';
import type { RawResponse } from '../security/support/http.ts';
import { type StoreState, stateChanges, stateOf } from '../security/support/state.ts';

/**
 * One write contract (issue 12.1–12.3), from a client's side over real HTTP against the real
 * memory-api (SQLite file, Redis): `/store`, `/v1/memories` and every batch item take the same
 * body, honour the owner and time wherever they are given, refuse what cannot be used with a 422
 * naming the field, and a refused write — single or batch — leaves every row, working memory and
 * queue as it was.
 */
let s: SecurityApp;
const TENANTS = ['acme', 'globex'];
const acme = { authorization: 'Bearer key-acme', 'content-type': 'application/json' };

beforeAll(async () => {
  s = await startSecurityApp();
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const send = (method: string, path: string, body?: unknown, headers = acme): Promise<RawResponse> =>
  s.client.send({
    method,
    path,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
const json = (answer: RawResponse) => JSON.parse(answer.body);
const state = () => stateOf(s.t.deps, TENANTS, s.t.redisPrefix);

async function memoriesOf(userId: string): Promise<MemoryRecord[]> {
  return json(await send('GET', `/v1/memories?user_id=${encodeURIComponent(userId)}`)).items;
}

/** Sends a request that must be refused with `status`, and proves it changed nothing. */
async function refused(
  status: number,
  method: string,
  path: string,
  body: unknown,
  field?: RegExp,
): Promise<{ code: string; message: string }> {
  const before: StoreState = await state();
  const answer = await send(method, path, body);
  expect(answer.status, answer.body).toBe(status);
  const error = json(answer).error as { code: string; message: string };
  if (field) expect(error.message).toMatch(field);
  expect(stateChanges(before, await state())).toEqual([]);
  return error;
}

describe('owner and time, wherever the short form allows them', () => {
  it('honours metadata.user_id and metadata.timestamp in a batch item, as /store does', async () => {
    const item = {
      content: 'Bob kayaks every Sunday',
      metadata: { user_id: 'contract-bob', timestamp: '2024-03-15T10:00:00Z' },
    };
    const batch = await send('POST', '/v1/memories', { items: [item] });
    expect(batch.status, batch.body).toBe(201);
    const [stored] = await memoriesOf('contract-bob');
    expect(stored).toMatchObject({ user_id: 'contract-bob', occurred_at: '2024-03-15T10:00:00.000Z' });
    // Kept verbatim too.
    expect(stored?.metadata).toEqual(item.metadata);

    const single = await send('POST', '/v1/memories', { ...item, content: 'Bob paddles on the lake' });
    const short = await send('POST', '/store', { ...item, content: 'Bob kayaks with his sister' });
    expect([single.status, short.status]).toEqual([201, 201]);
    const bob = await memoriesOf('contract-bob');
    expect(bob.map((m) => m.occurred_at)).toEqual(Array(3).fill('2024-03-15T10:00:00.000Z'));

    // Found by Bob's searches, not by a search without a user.
    const found = json(await send('POST', '/retrieve', { query: 'kayaks Sunday', user_id: 'contract-bob' }));
    expect(found.results.map((r: { content: string }) => r.content)).toContain('Bob kayaks every Sunday');
    const anyone = json(await send('POST', '/retrieve', { query: 'kayaks Sunday' }));
    expect(anyone.results).toEqual([]);
  });

  it('reads epoch seconds and milliseconds in metadata.timestamp', async () => {
    await send('POST', '/store', {
      content: 'Carol ran a marathon',
      metadata: { user_id: 'contract-carol', timestamp: 1710496800 },
    });
    await send('POST', '/store', {
      content: 'Carol ran a half marathon',
      metadata: { user_id: 'contract-carol', timestamp: 1710496800000 },
    });
    const carol = await memoriesOf('contract-carol');
    expect(carol.map((m) => m.occurred_at)).toEqual(['2024-03-15T10:00:00.000Z', '2024-03-15T10:00:00.000Z']);
  });

  const unusable: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a numeric metadata.user_id', { metadata: { user_id: 42 } }, /metadata\.user_id: must be a string/],
    ['a blank metadata.user_id', { metadata: { user_id: '  ' } }, /metadata\.user_id: must not be blank/],
    ['a metadata.session_id that is an object', { metadata: { session_id: { id: 's1' } } }, /metadata\.session_id/],
    [
      'user_id and metadata.user_id that disagree',
      { user_id: 'alice', metadata: { user_id: 'bob' } },
      /metadata\.user_id: "bob" disagrees with user_id "alice"/,
    ],
    [
      'an unreadable metadata.timestamp',
      { metadata: { timestamp: 'yesterday' } },
      /metadata\.timestamp: must be an ISO-8601/,
    ],
    ['a metadata.timestamp of the wrong type', { metadata: { timestamp: true } }, /metadata\.timestamp/],
    [
      'occurred_at and metadata.timestamp that disagree',
      { occurred_at: '2024-03-15T10:00:00Z', metadata: { timestamp: '2024-03-16T10:00:00Z' } },
      /metadata\.timestamp: disagrees with occurred_at/,
    ],
    ['a blank user_id', { user_id: ' ' }, /user_id: must not be blank/],
  ];
  for (const [name, fields, message] of unusable) {
    it(`refuses ${name} with a 422 naming the field, on /store, /v1/memories and in a batch`, async () => {
      const body = { content: 'Dave plays the oboe', ...fields };
      await refused(422, 'POST', '/store', body, message);
      await refused(422, 'POST', '/v1/memories', body, message);
      const error = await refused(422, 'POST', '/v1/memories', { items: [{ content: 'Dave plays chess' }, body] });
      expect(error.message).toMatch(/^body\.items\.1\.(metadata\.)?\w+: /);
    });
  }

  it('takes the same time given twice in two spellings', async () => {
    const answer = await send('POST', '/store', {
      content: 'Erin adopted a cat',
      occurred_at: '2024-03-15T12:00:00+02:00',
      metadata: { user_id: 'contract-erin', timestamp: '2024-03-15T10:00:00Z' },
    });
    expect(answer.status, answer.body).toBe(201);
    expect((await memoriesOf('contract-erin'))[0]?.occurred_at).toBe('2024-03-15T10:00:00.000Z');
  });
});

describe('batches commit all or nothing', () => {
  it('a working item for another user’s session refuses the whole batch, naming the item', async () => {
    const taken = await send('POST', '/v1/sessions/contract-taken/turns', {
      user_id: 'contract-owner',
      role: 'user',
      content: 'hello',
    });
    expect(taken.status).toBe(201);
    const error = await refused(409, 'POST', '/v1/memories', {
      items: [
        { content: 'The user likes green tea', memory_type: 'preference', user_id: 'contract-intruder' },
        { content: 'scratch', memory_type: 'working', session_id: 'contract-taken', user_id: 'contract-intruder' },
      ],
    });
    expect(error.message).toMatch(/^item 1: session contract-taken belongs to another user/);
    expect(await memoriesOf('contract-intruder')).toEqual([]);
  });

  it('two working items of one batch cannot claim one fresh session for two users', async () => {
    const error = await refused(409, 'POST', '/v1/memories', {
      items: [
        { content: 'note one', memory_type: 'working', session_id: 'contract-fresh', user_id: 'contract-u1' },
        { content: 'note two', memory_type: 'working', session_id: 'contract-fresh', user_id: 'contract-u2' },
      ],
    });
    expect(error.message).toMatch(/^item 1: /);
  });

  it('one item over its limit late in a batch of 1,000 refuses all of it, naming that item', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      content: i === 901 ? 'x'.repeat(2001) : `Delivery ${i} reached dock ${i % 7}`,
      user_id: 'contract-large-batch',
    }));
    const error = await refused(422, 'POST', '/v1/memories', { items });
    expect(error.message).toMatch(/^item 901: episodic content must be at most 2000 characters/);
    expect(await memoriesOf('contract-large-batch')).toEqual([]);
  });

  it('an ill-formed id in a later item refuses the batch with 422 before anything is written', async () => {
    const error = await refused(422, 'POST', '/v1/memories', {
      items: [
        { content: 'The user likes black tea', memory_type: 'preference', user_id: 'contract-batch' },
        { content: 'scratch', memory_type: 'working', session_id: 'contract-\uD800' },
      ],
    });
    expect(error.message).toMatch(/^body\.items\.1\.session_id: must be well-formed Unicode/);
  });
});

describe('content-free or malformed input', () => {
  const deep = (depth: number) =>
    `{"content":"Frank collects stamps","user_id":"contract-frank","metadata":{"nested":${deeplyNestedJson(depth, 'object')}}}`;

  it('refuses metadata nested past 32 levels with 422 on every write route, however small', async () => {
    for (const depth of [5000, 1300, 40]) {
      await refused(422, 'POST', '/store', deep(depth), /metadata: must nest at most 32 levels deep/);
      await refused(422, 'POST', '/v1/memories', deep(depth), /metadata/);
      await refused(422, 'POST', '/v1/memories', `{"items":[${deep(depth)}]}`, /^body\.items\.0\.metadata/);
    }
    const stored = await send('POST', '/store', { content: 'Frank collects coins', user_id: 'contract-frank' });
    const { id } = json(stored);
    await refused(
      422,
      'PATCH',
      `/v1/memories/${id}`,
      `{"metadata":{"nested":${deeplyNestedJson(40, 'object')}}}`,
      /metadata/,
    );
    // Within the bound it is kept and read back verbatim.
    const ok = await send('POST', '/store', deep(30));
    expect(ok.status, ok.body).toBe(201);
  });

  const ILL_FORMED: Array<[string, string]> = [
    ['a lone surrogate', 'contract-\uD800'],
    ['NUL', 'contract-\u0000x'],
    ['a newline', 'contract-\nx'],
    ['blank', '   '],
  ];
  for (const [what, id] of ILL_FORMED) {
    it(`refuses ${what} in an id with 422 on every route that takes one, writing nothing`, async () => {
      for (const field of ['user_id', 'session_id', 'agent_id']) {
        await refused(422, 'POST', '/store', {
          content: 'Gina sings',
          memory_type: 'working',
          session_id: 'contract-g',
          [field]: id,
        });
        await refused(422, 'POST', '/retrieve', { query: 'Gina', [field]: id });
        await refused(422, 'POST', '/v1/search', { query: 'Gina', [field]: id });
        await refused(422, 'POST', '/v1/forget', { [field]: id, dry_run: true });
      }
      await refused(422, 'POST', '/v1/sessions/contract-g/turns', { user_id: id, role: 'user', content: 'hi' });
      await refused(422, 'POST', '/v1/sessions/contract-g/end', { user_id: id });
      // A lone surrogate cannot be percent-encoded UTF-8: the router refuses such a URL with 400 first.
      // (A query string decodes such bytes to U+FFFD, a well-formed id of no one.)
      const inUrl = what === 'a lone surrogate' ? 400 : 422;
      await refused(inUrl, 'POST', `/v1/sessions/${escapeId(id)}/turns`, { user_id: 'u', role: 'user', content: 'hi' });
      await refused(inUrl, 'GET', `/v1/users/${escapeId(id)}/summary`, undefined);
      if (inUrl === 422) await refused(422, 'GET', `/v1/sessions/contract-g/turns?user_id=${escapeId(id)}`, undefined);
    });
  }

  it('refuses ill-formed ids in MCP tool arguments with an actionable tool error, writing nothing', async () => {
    const address = `http://127.0.0.1:${s.client.port}`;
    const mcp = await connectMcp(address, { authorization: 'Bearer key-acme' });
    try {
      for (const [, id] of ILL_FORMED) {
        const before = await state();
        const wrote = await callTool(mcp, 'memory_write', {
          content: 'Hana paints',
          memory_type: 'working',
          session_id: id,
        });
        const searched = await callTool(mcp, 'memory_search', { query: 'Hana', user_id: id });
        const forgot = await callTool(mcp, 'memory_forget', { session_id: id });
        for (const result of [wrote, searched, forgot]) {
          expect(result.isError, textOf(result)).toBe(true);
          expect(textOf(result)).toMatch(/session_id|user_id/);
          expect(textOf(result)).not.toMatch(/internal/);
        }
        expect(stateChanges(before, await state())).toEqual([]);
      }
    } finally {
      await mcp.close();
    }
  });
});

/** A path segment as a client that does not check well-formedness sends it (a lone surrogate as WTF-8). */
function escapeId(id: string): string {
  return [...id]
    .map((char) => {
      const unit = char.charCodeAt(0);
      if (unit >= 0xd800 && unit <= 0xdfff) return '%ED%A0%80';
      return encodeURIComponent(char);
    })
    .join('');
}
