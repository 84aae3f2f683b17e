import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_FAILURES, KNOWN_ISOLATION_FAILURES } from './known-failures.ts';
import { type SecurityApp, startSecurityApp } from './support/app.ts';
import type { RawClient } from './support/http.ts';

/**
 * The fuzz suite's known failures, each replayed with its exact request. `it.fails`: these pass
 * while the defect is there; when its owner's fix lands the test fails, which is the signal to
 * delete the entry from known-failures.ts (the fuzz suite then checks those requests again).
 */
let app: SecurityApp;
let client: RawClient;

beforeAll(async () => {
  app = await startSecurityApp();
  ({ client } = app);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe('known failures found by the attack suite (owned elsewhere, see BOARD.md)', () => {
  it('lists each known failure with the BOARD post of its owner', () => {
    for (const known of [...KNOWN_FAILURES, ...KNOWN_ISOLATION_FAILURES]) expect(known.board).toMatch(/BOARD\.md/);
  });
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
