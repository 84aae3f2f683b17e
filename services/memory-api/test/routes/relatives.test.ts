import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Issue 11.3 through /retrieve on the real app (SQLite file, Redis, the built-in embedder): a
 * question about one relative of the user's is answered by the fact about that relative, not by
 * one about another relative that word vectors put close (mother and father, sister and wife).
 * The same facts and questions are asked of an app with the relation weights off
 * (`RANK_RELATION_ABOUT=0`, `RANK_RELATION_OTHER=0`).
 */
const FACTS: ReadonlyArray<[fact: string, question: string, user: string]> = [
  ['My dad drives a bus for the city council.', "What's my father's occupation?", 'sofie'],
  ['My mum is a dentist in Odense.', 'What does my mother do?', 'sofie'],
  ['My little brother Magnus is eleven and obsessed with Minecraft.', 'How old is my brother?', 'sofie'],
  ['My sister Ida runs a bakery in Aarhus.', "What's my sister's business?", 'sofie'],
  ['My husband Jonas teaches maths at a secondary school.', 'What does my spouse do for work?', 'sofie'],
  ['Our daughter Freja plays the violin in the school orchestra.', 'Which instrument does my girl play?', 'sofie'],
  ['我爸爸是养蜂的，夏天把蜂箱拉到草原上。', '我父亲从事什么行业？', 'ayiguli'],
  ['我妈在医院食堂做饭。', '我母亲上班的地方是哪儿？', 'ayiguli'],
  ['我姐姐在深圳当护士。', '我姐干什么工作？', 'ayiguli'],
  ['我妹妹在读高二。', '我妹现在上几年级？', 'ayiguli'],
];

/** Distractors: the users' own facts, which no question above asks about. */
const OWN_FACTS: ReadonlyArray<[fact: string, user: string]> = [
  ['I work nights as a security guard at the harbour.', 'sofie'],
  ['I have lived with two flatmates near the university since August.', 'sofie'],
  ['我在一家无人机公司当飞手。', 'ayiguli'],
  ['我住在伊宁市，跟爸妈住一个院子。', 'ayiguli'],
];

async function firstPlaced(t: TestApp): Promise<string[]> {
  const first: string[] = [];
  for (const [fact, question, user] of FACTS) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: question, user_id: user, top_k: 3 },
    });
    expect(response.statusCode).toBe(200);
    if (response.json().results[0]?.content === fact) first.push(question);
  }
  return first;
}

/** The results of `/retrieve` for one user's query, with the default top_k. */
async function retrieve(t: TestApp, query: string, user: string): Promise<Array<{ content: string; score: number }>> {
  const response = await t.app.inject({ method: 'POST', url: '/retrieve', payload: { query, user_id: user } });
  expect(response.statusCode).toBe(200);
  return response.json().results;
}

let weighed: TestApp;
let unweighed: TestApp;

beforeAll(async () => {
  [weighed, unweighed] = await Promise.all([
    startTestApp(),
    startTestApp({ RANK_RELATION_ABOUT: '0', RANK_RELATION_OTHER: '0', RANK_RELATION_OWNER: '0' }),
  ]);
  for (const t of [weighed, unweighed]) {
    for (const [content, user] of [...FACTS.map(([fact, , user]) => [fact, user] as const), ...OWN_FACTS]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/store',
        payload: { content, memory_type: 'fact', user_id: user },
      });
      expect(response.statusCode).toBeLessThan(300);
    }
  }
});
afterAll(async () => {
  await Promise.all([weighed?.close(), unweighed?.close()]);
});

describe('questions about a relative', () => {
  it('put the fact about that relative first for more questions than without the relation weights', async () => {
    const [withRelations, without] = [await firstPlaced(weighed), await firstPlaced(unweighed)];
    expect(withRelations.length).toBeGreaterThan(without.length);
    expect(withRelations.length).toBeGreaterThanOrEqual(FACTS.length - 3);
  });

  it("answer a question naming no relative with the user's own facts at their scores, facts about relatives lower", async () => {
    const own = new Set(OWN_FACTS.map(([fact]) => fact));
    for (const [query, user] of [
      ['Where do I work?', 'sofie'],
      ['Where do I live?', 'sofie'],
      ['我住在哪里？', 'ayiguli'],
      ['cello', 'sofie'],
    ] as Array<[string, string]>) {
      const [a, b] = [await retrieve(weighed, query, user), await retrieve(unweighed, query, user)];
      const scoreIn = (results: Array<{ content: string; score: number }>, content: string) =>
        results.find((r) => r.content === content)?.score;
      for (const r of a) {
        if (own.has(r.content)) expect(r.score, `${query}: ${r.content}`).toBe(scoreIn(b, r.content));
        else expect(r.score, `${query}: ${r.content}`).toBeLessThan(scoreIn(b, r.content) ?? 1);
      }
    }
    for (const [, question, user] of FACTS) {
      const results = (
        await weighed.app.inject({ method: 'POST', url: '/retrieve', payload: { query: question, user_id: user } })
      ).json().results as Array<{ score: number }>;
      for (const r of results) expect(r.score).toBeLessThanOrEqual(1);
    }
  });

  it('answer a question asking who with the facts about relatives at their full scores: a relative is then the answer', async () => {
    for (const [query, user] of [
      ['Who do I live with?', 'sofie'],
      ['Who plays the violin?', 'sofie'],
      ['谁在深圳当护士？', 'ayiguli'],
    ] as Array<[string, string]>) {
      const [a, b] = [await retrieve(weighed, query, user), await retrieve(unweighed, query, user)];
      expect(a.length, query).toBeGreaterThan(0);
      for (const r of a) expect(r.score, `${query}: ${r.content}`).toBe(b.find((x) => x.content === r.content)?.score);
    }
  });

  it('refuses a relation weight out of range at start-up', async () => {
    await expect(startTestApp({ RANK_RELATION_OTHER: '1.5' })).rejects.toThrow(/RANK_RELATION_OTHER/);
  });
});
