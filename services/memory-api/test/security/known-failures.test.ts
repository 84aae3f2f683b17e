import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';
import { KNOWN_FAILURES, KNOWN_ISOLATION_FAILURES } from './known-failures.ts';
import { RawClient } from './support/http.ts';
import { securityRedisUrl } from './support/state.ts';

/**
 * The fuzz suite's known failures, each replayed with its exact request. `it.fails`: these pass
 * while the defect is there; when its owner's fix lands the test fails, which is the signal to
 * delete the entry from known-failures.ts (the fuzz suite then checks those requests again).
 */
let t: TestApp;
let client: RawClient;

beforeAll(async () => {
  t = await startTestApp({ ...TENANT_KEYS, REDIS_URL: securityRedisUrl() });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  client = new RawClient((t.app.server.address() as AddressInfo).port);
}, 60_000);

afterAll(async () => {
  client?.close();
  await t?.close();
});

describe('known failures found by the attack suite (owned elsewhere, see BOARD.md)', () => {
  for (const known of KNOWN_FAILURES) {
    it.fails(`${known.defect} [${known.board}]`, async () => {
      const answer = await client.send(known.example);
      expect(answer.status).toBeLessThan(500);
    });
  }
  for (const known of KNOWN_ISOLATION_FAILURES) {
    it.fails(`${known.defect} [${known.board}]`, () => known.replay(client));
  }
});
