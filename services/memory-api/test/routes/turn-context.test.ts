import { type PgliteServer, startPgliteServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Conversation context for turns (issue 11.4), as a client sees it on the real app (SQLite file,
 * Redis, the built-in embedder): an episodic turn of a session is found by the words of the
 * exchange it belongs to — the turns before it and the one after it, once that one arrives —
 * whether the turns are written one by one through /store or in one batch, and its content stays
 * as written. Each case runs against a second app with the context window set to 0, which must
 * not find the turn: the neighbouring turns' words are what finds it. On the embedded store and
 * on PostgreSQL (PGlite), each app in its own schema.
 */
const NO_CONTEXT = { TURN_CONTEXT_BEFORE: '0', TURN_CONTEXT_AFTER: '0' };

type Turn = { content: string; at: string };
type Hit = { id: string; content: string; scores: { keyword: number } };

const turnBody = (user: string, session: string, turn: Turn) => ({
  content: turn.content,
  memory_type: 'episodic',
  user_id: user,
  session_id: session,
  occurred_at: `2025-04-02T18:${turn.at}:00.000Z`,
});

async function storeOne(t: TestApp, user: string, session: string, turn: Turn): Promise<string> {
  const response = await t.app.inject({ method: 'POST', url: '/store', payload: turnBody(user, session, turn) });
  expect(response.statusCode).toBe(201);
  return (response.json() as { id: string }).id;
}

async function storeBatch(t: TestApp, user: string, session: string, turns: Turn[]): Promise<string[]> {
  const items = turns.map((turn) => turnBody(user, session, turn));
  const response = await t.app.inject({ method: 'POST', url: '/v1/memories', payload: { items } });
  expect(response.statusCode).toBe(201);
  return (response.json() as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

async function found(t: TestApp, user: string, query: string): Promise<Hit[]> {
  const response = await t.app.inject({ method: 'POST', url: '/retrieve', payload: { query, user_id: user } });
  expect(response.statusCode).toBe(200);
  return (response.json() as { results: Hit[] }).results;
}

const ids = (hits: Hit[]) => hits.map((h) => h.id);

describe.each(['sqlite', 'postgres'] as const)('turn context through the API (%s)', (backend) => {
  let withContext: TestApp;
  let withoutContext: TestApp;
  let database: PgliteServer | undefined;

  beforeAll(async () => {
    if (backend === 'postgres') database = await startPgliteServer();
    const store = (schema: string): Record<string, string> =>
      database ? { VECTOR_STORE: 'postgres', DATABASE_URL: database.url, DATABASE_SCHEMA: schema } : {};
    [withContext, withoutContext] = await Promise.all([
      startTestApp(store('with_context')),
      startTestApp({ ...store('without_context'), ...NO_CONTEXT }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([withContext?.close(), withoutContext?.close()]);
    await database?.stop();
  });

  const question: Turn = { content: 'Did you get to see the Kandinsky retrospective at the Guggenheim?', at: '01' };
  const reply: Turn = { content: 'Yes! I went twice, the colours were unbelievable.', at: '02' };
  const aside: Turn = { content: 'Also I finally fixed the leaking kitchen tap.', at: '03' };

  it('a turn written through /store is found by the words of the turn before it', async () => {
    for (const t of [withContext, withoutContext]) {
      await storeOne(t, 'single', 's1', question);
      await storeOne(t, 'single', 's1', reply);
      await storeOne(t, 'single', 's1', aside);
    }
    const hits = await found(withContext, 'single', 'Kandinsky retrospective');
    expect(hits.map((h) => h.content).slice(0, 2)).toEqual([question.content, reply.content]);
    // Stored as written: the neighbour's words are in the index, not in the content.
    expect(hits[1]?.content).toBe(reply.content);
    expect(ids(await found(withoutContext, 'single', 'Kandinsky retrospective'))).toHaveLength(1);
  });

  it('a batch of turns, sent in any order, gets the same context by conversation time', async () => {
    const shuffled = [aside, reply, question];
    const [withIds, withoutIds] = await Promise.all([
      storeBatch(withContext, 'batch', 's1', shuffled),
      storeBatch(withoutContext, 'batch', 's1', shuffled),
    ]);
    const [asideId, replyId, questionId] = withIds as [string, string, string];
    const hits = ids(await found(withContext, 'batch', 'Kandinsky retrospective'));
    expect(hits.slice(0, 2)).toEqual([questionId, replyId]);
    // Two turns back is still context; the tap is found by "Guggenheim" only as a neighbour, after the others.
    expect(ids(await found(withContext, 'batch', 'Guggenheim'))).toEqual([questionId, replyId, asideId]);
    expect(ids(await found(withoutContext, 'batch', 'Kandinsky retrospective'))).toEqual([withoutIds[2]]);
  });

  it('a turn is found by the words of the reply that arrives after it, once it arrives', async () => {
    const ask: Turn = { content: 'What did you cook for your mother on Sunday?', at: '10' };
    const answer: Turn = { content: 'A vegetarian moussaka, her favourite.', at: '11' };
    const askIds = await Promise.all([withContext, withoutContext].map((t) => storeOne(t, 'late', 's9', ask)));
    expect(ids(await found(withContext, 'late', 'moussaka'))).toEqual([]);
    const answerIds = await Promise.all([withContext, withoutContext].map((t) => storeOne(t, 'late', 's9', answer)));
    expect(ids(await found(withContext, 'late', 'moussaka'))).toEqual([answerIds[0], askIds[0]]);
    expect(ids(await found(withoutContext, 'late', 'moussaka'))).toEqual([answerIds[1]]);
  });

  it('keeps other sessions and other users out of a turn’s context', async () => {
    await storeOne(withContext, 'apart', 's1', { content: 'We talked about the Kandinsky retrospective.', at: '20' });
    await storeOne(withContext, 'apart', 's2', { content: 'Anyway, how was the dentist?', at: '21' });
    await storeOne(withContext, 'other', 's1', { content: 'No idea what that is.', at: '21' });
    // Only the turn holding the word has keyword evidence; the other session's turn and the other
    // user's turn (written right after it) have none.
    const byWords = async (user: string) =>
      (await found(withContext, user, 'Kandinsky')).filter((h) => h.scores.keyword > 0).map((h) => h.content);
    expect(await byWords('apart')).toEqual(['We talked about the Kandinsky retrospective.']);
    expect(await byWords('other')).toEqual([]);
  });
});
