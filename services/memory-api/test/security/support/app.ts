import type { AddressInfo } from 'node:net';
import { startTestApp, TENANT_KEYS, type TestApp } from '../../support/app.ts';
import { RawClient } from './http.ts';
import { type Operation, operationsOf } from './openapi.ts';
import { securityRedisUrl } from './state.ts';

export interface SecurityApp {
  t: TestApp;
  client: RawClient;
  /** The operations of the app's own OpenAPI document, read with a tenant key. */
  operations: Operation[];
  close(): Promise<void>;
}

/**
 * The real memory-api (tenants acme and globex, an admin key), listening on a loopback port
 * for real HTTP, its Redis keys in the security suites' database.
 */
export async function startSecurityApp(): Promise<SecurityApp> {
  const t = await startTestApp({ ...TENANT_KEYS, REDIS_URL: securityRedisUrl() });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const client = new RawClient((t.app.server.address() as AddressInfo).port);
  const document = await client.send({
    method: 'GET',
    path: '/docs/json',
    headers: { authorization: 'Bearer key-acme' },
  });
  return {
    t,
    client,
    operations: operationsOf(JSON.parse(document.body)),
    async close() {
      client.close();
      await t.close();
    },
  };
}
