import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * A question's everyday words ("taking", "working") are rare among one person's memories, so
 * plain BM25 over those memories weighs them like names: "Is she taking music lessons?" found
 * "… takes medication …" first, "What qualification is she working towards?" the fact that
 * mentions work. Through /retrieve on the real app, the fact that answers the question comes
 * first, and a common word still finds a fact when it is the question's only match
 * (RANK_COMMON_WORD_DISCOUNT=0.6; the default 0 ranks by plain BM25 weights).
 */
const FACTS = [
  'Mira is learning to play the cello.',
  'Mira takes medication for high blood pressure.',
  "Mira is training for her pilot's licence.",
  'Mira gets up at 5:30 to meditate before work.',
  'Mira has a grey cat called Smudge.',
  "Mira's sister Hannah lives in Canada.",
];

const QUESTIONS: Array<[question: string, answer: string]> = [
  ['Is she taking music lessons?', 'Mira is learning to play the cello.'],
  ['What qualification is she working towards?', "Mira is training for her pilot's licence."],
];

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RANK_COMMON_WORD_DISCOUNT: '0.6' });
  for (const content of FACTS) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/store',
      payload: { content, memory_type: 'fact', user_id: 'mira' },
    });
    expect(response.json().status).toBe('created');
  }
});
afterAll(async () => {
  await t.close();
});

describe('common words in a question', () => {
  it.each(QUESTIONS)(
    '"%s" finds the fact that answers it first, not one sharing an everyday word',
    async (question, answer) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/retrieve',
        payload: { query: question, user_id: 'mira' },
      });
      expect(response.statusCode).toBe(200);
      const results = (response.json() as { results: Array<{ content: string }> }).results;
      expect(results[0]?.content).toBe(answer);
    },
  );

  it('still finds a fact by a common word when nothing else matches it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: 'Where does Hannah live?', user_id: 'mira' },
    });
    expect(response.statusCode).toBe(200);
    const results = (response.json() as { results: Array<{ content: string }> }).results;
    expect(results[0]?.content).toBe("Mira's sister Hannah lives in Canada.");
  });
});
