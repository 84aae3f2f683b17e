import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialogueFocus, namedDays } from '../../src/memory/dialogue-focus.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { makeRecord } from '../support/records.ts';

/**
 * A question that names a speaker or a day, asked over conversation turns stored as episodic
 * memories (the real app: SQLite file, Redis, built-in embedder). The turn that answers "What did
 * Kevin cook?" is Kevin's, even when Paola's turn about his cooking holds more of the words; the
 * turn that answers "…on 21.01.2024" was said that day or just after. An app with both weights at
 * 0 ranks by the words alone, the other way round.
 */
let focused: TestApp;
let wordsOnly: TestApp;

const TURNS = [
  // Paola repeats the words of the question; Kevin's turn is the answer.
  {
    speaker: 'Paola',
    content: 'Paola: Kevin, did you cook dinner for your family? What did you cook?',
    at: '2024-01-20T19:00:00Z',
  },
  { speaker: 'Kevin', content: 'Kevin: I made a big lasagna with my mom.', at: '2024-01-20T19:01:00Z' },
  {
    speaker: 'Kevin',
    content: 'Kevin: Yoga class again this morning, my back feels great.',
    at: '2024-01-15T08:00:00Z',
  },
  { speaker: 'Kevin', content: 'Kevin: Went to yoga today, tried a new class.', at: '2024-01-21T09:00:00Z' },
  {
    speaker: 'Kevin',
    content: 'Kevin: I think yoga and yoga stretches help a lot with yoga soreness.',
    at: '2024-01-10T09:00:00Z',
  },
];

async function write(t: TestApp): Promise<void> {
  const items = TURNS.map((turn) => ({
    content: turn.content,
    memory_type: 'episodic',
    user_id: 'kevin-paola',
    session_id: `day-${turn.at.slice(0, 10)}`,
    occurred_at: turn.at,
    metadata: { speaker: turn.speaker },
  }));
  const response = await t.app.inject({ method: 'POST', url: '/v1/memories', payload: { items } });
  expect(response.statusCode).toBe(201);
}

async function ranked(t: TestApp, query: string): Promise<string[]> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/retrieve',
    payload: { query, user_id: 'kevin-paola', top_k: 3 },
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { results: Array<{ content: string }> }).results.map((r) => r.content);
}

beforeAll(async () => {
  [focused, wordsOnly] = await Promise.all([
    startTestApp(),
    startTestApp({ RANK_SPEAKER_MISMATCH: '0', RANK_DATE_MISMATCH: '0' }),
  ]);
  await Promise.all([write(focused), write(wordsOnly)]);
});
afterAll(async () => {
  await Promise.all([focused?.close(), wordsOnly?.close()]);
});

describe('dialogue focus', () => {
  it('answers a question about one speaker with that speaker’s turn', async () => {
    const question = 'What did Kevin cook for his family?';
    expect((await ranked(focused, question))[0]).toBe('Kevin: I made a big lasagna with my mom.');
    expect((await ranked(wordsOnly, question))[0]).toMatch(/^Paola:/);
  });

  it('knows a speaker spelled another way, from metadata.speaker or the transcript prefix', () => {
    const turn = (content: string, metadata: Record<string, unknown> = {}) =>
      makeRecord({ content, metadata, layer: 'episodic', session_id: 's1', category: 'event' });
    const muhhamed = turn('Muhhamed: I caught a cold.');
    const fahim = turn('I hope you feel better soon!', { speaker: 'Fahim Khan' });
    const fact = makeRecord({ content: 'Muhammad: likes tea.' });
    for (const question of ['When did Muhammad catch a cold?', 'When did Mohammed catch a cold?']) {
      const focus = dialogueFocus(question, [muhhamed, fahim, fact]);
      expect([focus?.(muhhamed), focus?.(fahim), focus?.(fact)]).toEqual([1, 0.5, 1]);
    }
    expect(dialogueFocus('Did Faheem send wishes?', [muhhamed, fahim])?.(muhhamed)).toBe(0.5);
    // Both speakers named, or none: no speaker focus.
    expect(dialogueFocus('Did Fahim and Muhhamed meet?', [muhhamed, fahim])).toBeUndefined();
    expect(dialogueFocus('Who caught a cold?', [muhhamed, fahim])).toBeUndefined();
  });

  it('answers a question naming a day with the turn said that day', async () => {
    for (const question of ['What did Kevin do for yoga on 21.01.2024?', 'Did Kevin do yoga on January 21st, 2024?']) {
      expect((await ranked(focused, question))[0]).toBe('Kevin: Went to yoga today, tried a new class.');
    }
    expect((await ranked(wordsOnly, 'What did Kevin do for yoga on 21.01.2024?'))[0]).not.toBe(
      'Kevin: Went to yoga today, tried a new class.',
    );
  });

  it('reads the usual ways of writing a day, and not a range', () => {
    const day = Date.UTC(2024, 0, 21);
    for (const text of [
      'on 21.01.2024',
      'on 2024-01-21',
      'on 21 Jan 2024',
      'on the 21st of January, 2024',
      'on January 21 2024',
    ])
      expect(namedDays(text)).toEqual([day]);
    expect(namedDays('12.25.2023')).toEqual([Date.UTC(2023, 11, 25)]);
    expect(namedDays('before 21.01.2024')).toEqual([]);
    expect(namedDays('on 31.02.2024')).toEqual([]);
    expect(namedDays('in January 2024')).toEqual([]);
  });
});
