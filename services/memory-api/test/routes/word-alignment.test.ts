import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Issue 11.3 through /retrieve on the real app (SQLite file, Redis, the built-in embedder): a
 * paraphrased question finds the fact that answers it by its words' meaning, word by word, where
 * the averaged sentence vector alone puts another fact first. The same facts and questions are
 * asked of an app with the alignment off (`RANK_WORD_ALIGNMENT=0`).
 */
const FACTS: ReadonlyArray<[fact: string, question: string]> = [
  [
    'Odile sings soprano with a gospel group every Wednesday night.',
    'Where is she in the middle of the week after supper?',
  ],
  ['Odile repairs vintage motorbikes in a workshop in Lyon.', 'How does she earn her money?'],
  ["Odile's son Bastien just started his first year at university.", 'How far along is her boy in his schooling?'],
  ['Odile keeps three hens and a goat behind her cottage.', 'Which animals live on her land?'],
  ['Odile had her appendix removed last winter.', 'Has she been operated on recently?'],
  ['Odile takes the tram into town because she never got a licence.', 'Can she drive a car?'],
  ['Odile is saving up for a trip to Patagonia next spring.', 'Where is she travelling to next year?'],
  ['Odile cannot stand coriander and picks it out of every dish.', 'Which herb does she dislike?'],
  ['Odile knits scarves for the homeless shelter in winter.', 'What does she make with wool, and for whom?'],
  ['Odile grew up on a farm near Clermont-Ferrand.', 'Which region is she originally from?'],
  ["Odile's partner Yusuf teaches chemistry at a lycée.", 'What does her companion do for work?'],
  ['Odile drinks a small espresso before every shift.', 'Which hot drink does she start work with?'],
];

async function firstPlaced(t: TestApp): Promise<number> {
  let first = 0;
  for (const [fact, question] of FACTS) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: question, user_id: 'odile', top_k: 3 },
    });
    expect(response.statusCode).toBe(200);
    if (response.json().results[0]?.content === fact) first++;
  }
  return first;
}

let aligned: TestApp;
let cosineOnly: TestApp;

beforeAll(async () => {
  [aligned, cosineOnly] = await Promise.all([startTestApp(), startTestApp({ RANK_WORD_ALIGNMENT: '0' })]);
  for (const t of [aligned, cosineOnly]) {
    for (const [fact] of FACTS) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/store',
        payload: { content: fact, memory_type: 'fact', user_id: 'odile' },
      });
      expect(response.statusCode).toBeLessThan(300);
    }
  }
});
afterAll(async () => {
  await Promise.all([aligned?.close(), cosineOnly?.close()]);
});

describe('word alignment of the best facts', () => {
  it('puts the answering fact first for more paraphrased questions than the sentence vectors alone', async () => {
    const [withWords, withoutWords] = [await firstPlaced(aligned), await firstPlaced(cosineOnly)];
    expect(withWords).toBeGreaterThan(withoutWords);
    expect(withWords).toBeGreaterThanOrEqual(FACTS.length / 2);
  });

  it('only promotes: no question answers fewer results or a lower top score than without it', async () => {
    const probes = [...FACTS.map(([, question]) => question), 'what is the weather like on the moon?', 'cello'];
    for (const query of probes) {
      const ask = async (t: TestApp) =>
        (await t.app.inject({ method: 'POST', url: '/retrieve', payload: { query, user_id: 'odile' } })).json()
          .results as Array<{ score: number }>;
      const [withWords, withoutWords] = [await ask(aligned), await ask(cosineOnly)];
      expect(withWords.length, query).toBeGreaterThanOrEqual(withoutWords.length);
      expect(withWords[0]?.score ?? 0, query).toBeGreaterThanOrEqual(withoutWords[0]?.score ?? 0);
    }
  });

  it('keeps scores in 0..1 in score order, and still answers nothing for a query about nothing stored', async () => {
    const response = await aligned.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: 'quantum chromodynamics lecture notes', user_id: 'odile' },
    });
    const scores = (response.json().results as Array<{ score: number }>).map((r) => r.score);
    expect(scores.length).toBeLessThanOrEqual(2);
    const asked = await aligned.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: 'Which animals live on her land?', user_id: 'odile', min_score: 0 },
    });
    const all = (asked.json().results as Array<{ score: number }>).map((r) => r.score);
    expect(all.length).toBeGreaterThan(3);
    for (const score of all) expect(score).toBeGreaterThanOrEqual(0);
    for (const score of all) expect(score).toBeLessThanOrEqual(1);
    expect(all).toEqual([...all].sort((a, b) => b - a));
  });
});
