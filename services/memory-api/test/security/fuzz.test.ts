import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { knownFailureOf } from './known-failures.ts';
import { type SecurityApp, startSecurityApp } from './support/app.ts';
import { answerProblems, describeRequest, wasRejected } from './support/checks.ts';
import { type IdPools, seedTenant } from './support/fixtures.ts';
import type { RawClient } from './support/http.ts';
import type { Operation } from './support/openapi.ts';
import { type Credentials, requestsFor } from './support/requests.ts';
import { purgeTenant, stateChanges, stateOf } from './support/state.ts';

/**
 * The attack suite (issue 10 "Also", issue 12 "Done when"): every operation of memory-api's
 * own OpenAPI document gets requests generated from its schemas — valid shapes carrying odd
 * text, wrong types, missing and unknown fields, deep and huge bodies, ill-formed unicode,
 * full-text and SQL-ish syntax, broken encodings, every kind of caller — over real HTTP to the
 * real app (real SQLite file, real Redis). No answer may be a 5xx or carry internals, and a
 * refused request must leave every row, working memory and the queue as they were.
 *
 * Seeded: `FUZZ_SEED` replays a run, `FUZZ_RUNS` sets the requests per operation, `FUZZ_ONLY`
 * (e.g. `POST /store`) replays only the operations whose name contains it, with the same requests.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_201);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 80);
const ONLY = process.env.FUZZ_ONLY;

const ACME: Credentials = { tenantKey: 'key-acme', tenant: 'acme', adminKey: 'key-admin' };

let app: SecurityApp;
let t: TestApp;
let client: RawClient;
let operations: Operation[];
let globex: IdPools;

beforeAll(async () => {
  app = await startSecurityApp();
  ({ t, client, operations } = app);
  globex = await seedTenant(client, 'key-globex', 'globex');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

interface Finding {
  operation: string;
  mutation: string;
  request: string;
  problems: string[];
  status: number;
  body: string;
}

describe('fuzzing every route of the OpenAPI document', () => {
  it('covers every operation the document lists', () => {
    expect(operations.length).toBeGreaterThanOrEqual(25);
    const names = operations.map((o) => o.name);
    for (const expected of ['POST /store', 'POST /retrieve', 'POST /v1/import', 'POST /mcp', 'DELETE /v1/users/{id}']) {
      expect(names).toContain(expected);
    }
  });

  it('answers every generated request without a 5xx, and a refused one changes nothing', async () => {
    const findings: Finding[] = [];
    let sent = 0;
    let known = 0;
    const tenants = ['acme', 'globex'];
    const started = Date.now();
    const perOperation: string[] = [];
    for (const [index, operation] of operations.entries()) {
      if (ONLY !== undefined && !operation.name.includes(ONLY)) continue;
      const operationStarted = Date.now();
      // Fresh data per operation: erase and forget requests of the last one may have emptied it.
      await purgeTenant(t.deps, 'acme', t.redisPrefix);
      const acme = await seedTenant(client, 'key-acme', `acme${index}`);
      const cases = fc.sample(requestsFor(operation, acme, ACME), { seed: SEED + index, numRuns: RUNS_PER_OPERATION });
      let state = await stateOf(t.deps, tenants, t.redisPrefix);
      for (const fuzz of cases) {
        const response = await client.send(fuzz.request);
        sent += 1;
        if (knownFailureOf(fuzz)) {
          known += 1;
          state = await stateOf(t.deps, tenants, t.redisPrefix);
          continue;
        }
        const problems = answerProblems(fuzz.request, response);
        if (globex.canaries.some((canary) => response.body.includes(canary))) {
          problems.push("another tenant's text in the answer");
        }
        const after = await stateOf(t.deps, tenants, t.redisPrefix);
        if (wasRejected(fuzz.request, response)) {
          const changes = stateChanges(state, after);
          if (changes.length > 0)
            problems.push(`refused (${response.status}) but changed: ${changes.slice(0, 5).join(', ')}`);
        }
        state = after;
        if (problems.length > 0) {
          findings.push({
            operation: operation.name,
            mutation: fuzz.mutation,
            request: describeRequest(fuzz.request),
            problems,
            status: response.status,
            body: response.body.slice(0, 300),
          });
        }
      }
      perOperation.push(`${operation.name} ${Date.now() - operationStarted} ms`);
    }
    console.info(`fuzz: ${sent} requests in ${Date.now() - started} ms\n${perOperation.join('\n')}`);
    const report = findings
      .slice(0, 40)
      .map(
        (f) => `- ${f.operation} [${f.mutation}] → ${f.problems.join('; ')}\n    ${f.request}\n    answer: ${f.body}`,
      )
      .join('\n');
    expect(
      findings,
      `${findings.length} of ${sent} requests (${known} matched known failures, seed ${SEED}):\n${report}`,
    ).toEqual([]);
    if (ONLY === undefined) expect(sent).toBeGreaterThanOrEqual(operations.length * RUNS_PER_OPERATION);
  }, 300_000);
});
