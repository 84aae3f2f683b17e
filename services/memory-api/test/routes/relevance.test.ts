import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * What a search answers, as a client sees it through /retrieve and /v1/search on the real app
 * (SQLite file, Redis, the default built-in embedder): scores that mean relevance, a floor for
 * "nothing relevant", no redundant results, no profile summary unless asked for.
 */
let t: TestApp;
const FACTS = [
  'Maya is vegetarian and has not eaten meat since college.',
  'Maya has two cats named Pixel and Mochi.',
  'Maya works as a pediatric nurse at Riverside Hospital.',
  'Maya is allergic to peanuts.',
  'Maya is learning to play the cello.',
  'Maya is planning a trip to Portugal in September.',
];

type Result = { id: string; content: string; category: string; score: number };
type Answer = { results: Result[]; dense_skipped: boolean };

const retrieve = async (body: Record<string, unknown>) => {
  const response = await t.app.inject({ method: 'POST', url: '/retrieve', payload: body });
  return { status: response.statusCode, body: response.json() as Answer };
};
const store = async (body: Record<string, unknown>) => {
  const response = await t.app.inject({ method: 'POST', url: '/store', payload: body });
  expect(response.statusCode).toBeLessThan(300);
  return response.json() as { id: string; status: string };
};

beforeAll(async () => {
  t = await startTestApp();
  for (const content of FACTS) await store({ content, memory_type: 'fact', user_id: 'maya' });
});
afterAll(async () => {
  await t.close();
});

describe('relevance', () => {
  it('puts the allergy first for "allergy", with a score in 0..1', async () => {
    const { status, body } = await retrieve({ query: 'allergy', user_id: 'maya' });
    expect(status).toBe(200);
    expect(body.results[0]?.content).toBe('Maya is allergic to peanuts.');
    for (const result of body.results) {
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.score).toBeLessThanOrEqual(1);
    }
    expect(body.dense_skipped).toBe(false);
  });

  it('answers few or no results when nothing is relevant, all of them with min_score 0', async () => {
    const nothing = await retrieve({ query: 'quantum chromodynamics lecture notes', user_id: 'maya' });
    expect(nothing.body.results.length).toBeLessThanOrEqual(2);
    const everything = await retrieve({ query: 'quantum chromodynamics lecture notes', user_id: 'maya', min_score: 0 });
    expect(everything.body.results.length).toBeGreaterThan(nothing.body.results.length + 1);
  });

  it('keeps only results at or above min_score, in score order', async () => {
    const all = (await retrieve({ query: 'What instrument is she studying?', user_id: 'maya', min_score: 0 })).body;
    const scores = all.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const floor = scores[1] ?? 0;
    const above = (await retrieve({ query: 'What instrument is she studying?', user_id: 'maya', min_score: floor }))
      .body;
    expect(above.results.map((r) => r.id)).toEqual(all.results.filter((r) => r.score >= floor).map((r) => r.id));
    expect((await retrieve({ query: 'cello', user_id: 'maya', min_score: 1 })).body.results).toEqual([]);
  });

  it('refuses a min_score outside 0..1 with a 422 naming it', async () => {
    for (const min_score of [-0.1, 1.5, 'high', null]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/search',
        payload: { query: 'cello', user_id: 'maya', min_score },
      });
      expect(response.statusCode).toBe(422);
      expect(JSON.stringify(response.json())).toMatch(/min_score/);
    }
  });
});

describe('redundancy', () => {
  it('collapses near-identical results and a session summary that restates a returned fact', async () => {
    const user = 'redundant';
    const fact = await store({
      content: 'Sam is training for the Berlin marathon in April.',
      memory_type: 'fact',
      user_id: user,
      session_id: 's1',
    });
    await store({
      content: 'Sam: my new running shoes for the Berlin marathon arrived today.',
      user_id: user,
      session_id: 's1',
    });
    await store({
      content: 'Sam: my new running shoes for the Berlin marathon arrived today!',
      user_id: user,
      session_id: 's2',
    });
    await store({
      content: 'Session summary: Sam is training for the Berlin marathon in April and bought shoes.',
      memory_type: 'episodic',
      category: 'summary',
      user_id: user,
      session_id: 's1',
    });
    const { body } = await retrieve({ query: 'Berlin marathon', user_id: user });
    const contents = body.results.map((r) => r.content);
    expect(contents).toContain('Sam is training for the Berlin marathon in April.');
    expect(body.results.find((r) => r.id === fact.id)).toBeDefined();
    // One of the two near-identical turns, and no summary restating the fact.
    expect(contents.filter((c) => c.startsWith('Sam: my new running shoes'))).toHaveLength(1);
    expect(body.results.filter((r) => r.category === 'summary')).toEqual([]);
  });

  it('leaves the profile summary out of search results unless its category is asked for', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/v1/users/maya/summary',
      payload: { content: 'Maya: pediatric nurse, vegetarian, allergic to peanuts, plays the cello.' },
    });
    expect(put.statusCode).toBeLessThan(300);
    const plain = (await retrieve({ query: 'peanuts', user_id: 'maya', min_score: 0 })).body;
    expect(plain.results.map((r) => r.category)).not.toContain('profile');
    const asked = (await retrieve({ query: 'peanuts', user_id: 'maya', categories: ['profile'] })).body;
    expect(asked.results.map((r) => r.category)).toEqual(['profile']);
  });
});
