import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { deeplyNestedJson } from './support/arbitraries.ts';
import type { RawClient, RawRequest } from './support/http.ts';
import { type FuzzCase, ID_FIELDS } from './support/requests.ts';

/**
 * The one place the attack suite lists 5xx it found in areas other engineers are fixing right
 * now. Each entry names its BOARD.md post, matches exactly the generated requests of that defect
 * (nothing broader), and replays one exact request in `it.fails` (known-failures.test.ts):
 * when the fix lands that test starts failing, and the entry must go. Never widen an entry to
 * make the suite green.
 */
export interface KnownFailure {
  /** Who fixes it and where it was posted. */
  board: string;
  /** The defect, as the BOARD post states it. */
  defect: string;
  matches(fuzz: FuzzCase): boolean;
  /** One exact request that shows it. */
  example: RawRequest;
}

const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function bodyOf(fuzz: FuzzCase): unknown {
  if (typeof fuzz.request.body !== 'string') return undefined;
  try {
    return JSON.parse(fuzz.request.body);
  } catch {
    return undefined;
  }
}

/** Every object inside a JSON value, without recursion (bodies nest thousands deep). */
function* objectsIn(value: unknown): Generator<Record<string, unknown>> {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (!Array.isArray(next)) yield next as Record<string, unknown>;
    stack.push(...Object.values(next));
  }
}

function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop() as [unknown, number];
    deepest = Math.max(deepest, depth);
    if (typeof next === 'object' && next !== null)
      for (const inner of Object.values(next)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    board: 'BOARD.md, security → write-contract (issue 12.3, deep metadata)',
    defect: 'metadata nested thousands deep answers 500 (stack overflow in the size check) instead of 422',
    matches: (fuzz) =>
      ['POST /store', 'POST /v1/memories', 'PATCH /v1/memories/{id}'].includes(fuzz.operation) &&
      [...objectsIn(bodyOf(fuzz))].some((o) => 'metadata' in o && depthOf(o.metadata) > 1000),
    example: {
      method: 'POST',
      path: '/store',
      headers: json('key-acme'),
      body: `{"content":"Bob kayaks every Sunday","metadata":{"nested":${deeplyNestedJson(5000, 'object')}}}`,
    },
  },
  {
    board: 'BOARD.md, security → write-contract (issue 12.2/12.3, ill-formed ids)',
    defect:
      'a lone surrogate in user_id/session_id/agent_id answers 500 (URIError building a Redis key) instead of 422; in a batch the items before it stay written',
    matches: (fuzz) =>
      [...objectsIn(bodyOf(fuzz))].some((o) =>
        ID_FIELDS.some((field) => typeof o[field] === 'string' && LONE_SURROGATE.test(o[field] as string)),
      ),
    example: {
      method: 'POST',
      path: '/v1/sessions/known-failure-s1/turns',
      headers: json('key-acme'),
      body: JSON.stringify({ turns: [{ user_id: 'known-failure-\uD800', role: 'user', content: 'hello' }] }),
    },
  },
];

export function knownFailureOf(fuzz: FuzzCase): KnownFailure | undefined {
  return KNOWN_FAILURES.find((known) => known.matches(fuzz));
}

/** A tenant-isolation probe finding owned elsewhere; `replay` shows it with exact requests. */
export interface KnownIsolationFailure {
  board: string;
  defect: string;
  matches(operation: string, problems: readonly string[]): boolean;
  /** Sends the exact requests and asserts what holds once the defect is fixed. */
  replay(client: RawClient): Promise<void>;
}

async function sent(client: RawClient, request: RawRequest): Promise<{ status: number; body: string }> {
  const answer = await client.send(request);
  return { status: answer.status, body: answer.body };
}

export const KNOWN_ISOLATION_FAILURES: readonly KnownIsolationFailure[] = [
  {
    board: 'BOARD.md, security → write-contract (issue 10.8, import existence oracle)',
    defect:
      'an import line carrying another tenant\'s memory id answers 409 "already exists" where an unknown id imports',
    matches: (operation, problems) =>
      operation === 'POST /v1/import' &&
      problems.length > 0 &&
      problems.every((p) => /^answered 409 conflict for acme's ids but 2\d\d/.test(p)),
    replay: async (client) => {
      const victim = await sent(client, {
        method: 'POST',
        path: '/store',
        headers: json('key-acme'),
        body: JSON.stringify({ content: 'Acme keeps the launch date secret', user_id: 'oracle-victim' }),
      });
      const id = (JSON.parse(victim.body) as { id: string }).id;
      await sent(client, {
        method: 'POST',
        path: '/store',
        headers: json('key-globex'),
        body: JSON.stringify({ content: 'Globex template note', user_id: 'oracle-attacker' }),
      });
      const exported = await sent(client, {
        method: 'GET',
        path: '/v1/export?user_id=oracle-attacker',
        headers: json('key-globex'),
      });
      const line = JSON.parse(exported.body.split('\n')[0] as string) as Record<string, unknown>;
      const importing = (memoryId: string) =>
        sent(client, {
          method: 'POST',
          path: '/v1/import',
          headers: { authorization: 'Bearer key-globex', 'content-type': 'application/x-ndjson' },
          // Another owner than the template's, so the line is no exact duplicate of it.
          body: JSON.stringify({ ...line, id: memoryId, user_id: `oracle-${memoryId}` }),
        });
      const withVictimId = await importing(id);
      const withUnknownId = await importing(randomUUID());
      expect(withVictimId.status).toBe(withUnknownId.status);
    },
  },
];

export function knownIsolationFailureOf(
  operation: string,
  problems: readonly string[],
): KnownIsolationFailure | undefined {
  return KNOWN_ISOLATION_FAILURES.find((known) => known.matches(operation, problems));
}
