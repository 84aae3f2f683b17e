import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { knownIsolationFailureOf } from './known-failures.ts';
import { type SecurityApp, startSecurityApp } from './support/app.ts';
import { answerProblems, describeRequest } from './support/checks.ts';
import { type IdPools, jsonHeaders, seedTenant } from './support/fixtures.ts';
import type { RawClient, RawResponse } from './support/http.ts';
import { probesFor } from './support/isolation.ts';
import type { Operation } from './support/openapi.ts';
import { purgeTenant, stateChanges, tenantState } from './support/state.ts';

/**
 * Tenant isolation generated from the route table: for every operation of the OpenAPI
 * document, globex's key sends requests naming acme's users, sessions, memory ids, jobs and
 * secret words (path, query and body alike, from the operation's own parameters and schema).
 * globex must get nothing of acme's — no acme text or id it did not send, the same answer as
 * for ids that exist nowhere (no existence oracle) — and acme's data must be exactly as before.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_201);
const PROBES_PER_OPERATION = Number(process.env.ISOLATION_PROBES ?? 8);

let app: SecurityApp;
let t: TestApp;
let client: RawClient;
let operations: Operation[];
let acme: IdPools;
let exportedLine: Record<string, unknown>;
let acmeStream: { sessionId: string; close(): void } | undefined;

beforeAll(async () => {
  app = await startSecurityApp();
  ({ t, client, operations } = app);
  acme = await seedTenant(client, 'key-acme', 'acme');
  const written = await client.send({
    method: 'POST',
    path: '/store',
    headers: jsonHeaders('key-globex'),
    body: JSON.stringify({ content: 'globex keeps its own notes', user_id: 'globex-template' }),
  });
  expect(written.status).toBe(201);
  const exported = await client.send({
    method: 'GET',
    path: '/v1/export?user_id=globex-template',
    headers: jsonHeaders('key-globex'),
  });
  exportedLine = JSON.parse(exported.body.split('\n')[0] as string) as Record<string, unknown>;
  acmeStream = await openSseSession(client.port, 'key-acme', 'acme-alice');
  acme.streamSessionIds.push(acmeStream.sessionId);
}, 60_000);

afterAll(async () => {
  acmeStream?.close();
  await app?.close();
});

/** acme's MCP SSE session, held open for the whole file like a desktop client would. */
function openSseSession(port: number, key: string, userId: string): Promise<{ sessionId: string; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: '/sse', headers: { authorization: `Bearer ${key}`, 'x-user-id': userId } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const match = /sessionId=([\w-]+)/.exec(text);
          if (match) resolve({ sessionId: match[1] as string, close: () => request.destroy() });
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const errorCode = (response: RawResponse): unknown => {
  try {
    return (JSON.parse(response.body) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return undefined;
  }
};

describe("another tenant's key, through every route", () => {
  it("gets nothing of acme's and changes nothing of acme's", async () => {
    const before = await tenantState(t.deps, 'acme', t.redisPrefix);
    const findings: string[] = [];
    let probes = 0;
    for (const [index, operation] of operations.entries()) {
      for (const probe of probesFor(
        operation,
        acme,
        { key: 'key-globex', exported: exportedLine },
        'acme',
        PROBES_PER_OPERATION,
        SEED + index,
      )) {
        probes += 1;
        // Each request of the pair meets the same attacker tenant: what an earlier probe wrote
        // there (a session named like acme's) must not tell the two apart.
        await purgeTenant(t.deps, 'globex', t.redisPrefix);
        const answer = await client.send(probe.request);
        await purgeTenant(t.deps, 'globex', t.redisPrefix);
        const control = await client.send(probe.control);
        const problems = answerProblems(probe.request, answer);
        const sent = `${probe.request.path} ${String(probe.request.body ?? '')}`;
        if (acme.canaries.some((canary) => answer.body.includes(canary))) problems.push("acme's text in the answer");
        const leakedIds = acme.memoryIds.filter((id) => answer.body.includes(id) && !sent.includes(id));
        if (leakedIds.length > 0) problems.push(`acme memory ids it did not send: ${leakedIds.join(', ')}`);
        if (answer.status !== control.status || errorCode(answer) !== errorCode(control)) {
          problems.push(
            `answered ${answer.status} ${String(errorCode(answer))} for acme's ids but ${control.status} ${String(errorCode(control))} for unknown ones`,
          );
        }
        if (problems.length > 0 && !knownIsolationFailureOf(probe.operation, problems)) {
          findings.push(
            `- ${probe.operation} → ${problems.join('; ')}\n    ${describeRequest(probe.request)}\n    answer: ${answer.body.slice(0, 300)}`,
          );
        }
      }
    }
    const changes = stateChanges(before, await tenantState(t.deps, 'acme', t.redisPrefix));
    expect(
      findings,
      `${findings.length} of ${probes} probes (seed ${SEED}):\n${findings.slice(0, 30).join('\n')}`,
    ).toEqual([]);
    expect(changes, "acme's data after globex's probes").toEqual([]);
    expect(probes).toBeGreaterThanOrEqual(operations.length * PROBES_PER_OPERATION);
  }, 120_000);

  it('probes every operation of the document, the admin and debug ones included', () => {
    const names = operations.map((o) => o.name);
    expect(names).toEqual(expect.arrayContaining(['GET /debug/memory', 'POST /admin/maintenance/decay', 'POST /mcp']));
  });
});
