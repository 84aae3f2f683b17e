import { randomBytes } from 'node:crypto';
import type { RawClient } from './http.ts';

/** Ids a tenant's data lives under: the values path params and bodies are filled with. */
export interface IdPools {
  memoryIds: string[];
  sessionIds: string[];
  userIds: string[];
  jobIds: string[];
  /** Open MCP SSE sessions (`GET /sse`) of this tenant, when a test opened one. */
  streamSessionIds: string[];
  /** Text only this tenant's data contains: finding it in another tenant's answer is a leak. */
  canaries: string[];
}

export const emptyPools = (): IdPools => ({
  memoryIds: [],
  sessionIds: [],
  userIds: [],
  jobIds: [],
  streamSessionIds: [],
  canaries: [],
});

export const jsonHeaders = (key: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
});

async function post(client: RawClient, key: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await client.send({ method: 'POST', path, headers: jsonHeaders(key), body: JSON.stringify(body) });
  if (answer.status >= 300) throw new Error(`seeding ${path} answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

/**
 * Gives a tenant memories in every layer (with tags, metadata, a superseded one and its
 * successor), working memory in two sessions, a profile summary and a queued consolidation,
 * through the public API as a client would. Ids start with `prefix`; every text carries a
 * canary word that appears nowhere else (not in any id), so an answer holding it leaked text.
 */
export async function seedTenant(client: RawClient, key: string, prefix: string): Promise<IdPools> {
  const pools = emptyPools();
  const users = [`${prefix}-alice`, `${prefix}-bob`];
  pools.userIds.push(...users);
  const word = `canary${randomBytes(6).toString('hex')}`;
  pools.canaries.push(word);
  const canary = (what: string) => `${what} (${word})`;
  for (const user of users) {
    const written = (await post(client, key, '/v1/memories', {
      items: [
        { content: canary(`${user} is allergic to peanuts`), memory_type: 'fact', user_id: user, tags: ['health'] },
        {
          content: canary(`${user} prefers window seats`),
          memory_type: 'preference',
          user_id: user,
          metadata: { source: 'seed', note: canary('seat note') },
        },
        {
          content: canary(`${user} visited Lisbon in March`),
          memory_type: 'episodic',
          user_id: user,
          session_id: `${user}-s0`,
          occurred_at: '2024-03-15T10:00:00Z',
        },
      ],
    })) as { items: Array<{ id: string }> };
    pools.memoryIds.push(...written.items.map((i) => i.id));
    const first = (await post(client, key, '/store', {
      content: canary(`${user} drinks green tea every morning`),
      memory_type: 'preference',
      user_id: user,
    })) as { id: string };
    const second = (await post(client, key, '/store', {
      content: canary(`${user} no longer drinks green tea, switched to coffee`),
      memory_type: 'preference',
      user_id: user,
    })) as { id: string };
    pools.memoryIds.push(first.id, second.id);
    const session = `${user}-s1`;
    pools.sessionIds.push(session, `${user}-s0`);
    await post(client, key, `/v1/sessions/${encodeURIComponent(session)}/turns`, {
      turns: [
        { user_id: user, role: 'user', content: canary(`${user} says: remember my locker code is 4512`) },
        { user_id: user, role: 'assistant', content: canary('Noted.') },
      ],
    });
    const summary = await client.send({
      method: 'PUT',
      path: `/v1/users/${encodeURIComponent(user)}/summary`,
      headers: jsonHeaders(key),
      body: JSON.stringify({ content: canary(`${user} profile: allergic to peanuts, likes window seats`) }),
    });
    if (summary.status >= 300) throw new Error(`seeding the summary answered ${summary.status}: ${summary.body}`);
  }
  const ended = (await post(client, key, `/v1/sessions/${encodeURIComponent(`${users[0]}-s1`)}/end`, {
    user_id: users[0],
  })) as { job_id: string };
  pools.jobIds.push(ended.job_id);
  return pools;
}
