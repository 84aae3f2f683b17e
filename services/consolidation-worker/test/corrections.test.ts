import type { ConsolidationResult } from '@hindsight/jobs';
import type { MemoryRecord, TurnInput } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack.ts';

/**
 * A correction made during a session outlives the session's consolidation: the agent writes the
 * corrected memory at once, and the note the worker later takes from the earlier turn (the one
 * corrected) arrives after it but was said before it — it is kept as history, never as the answer.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function semanticOf(userId: string): Promise<MemoryRecord[]> {
  const page = await stack.client.list({ user_id: userId, limit: 200 });
  return page.items.filter((m) => m.layer === 'semantic' && m.category !== 'profile');
}

describe('a same-session correction, then the consolidation of that session', () => {
  it.each([
    {
      user: 'correct-en',
      said: 'I live in Berlin.',
      correction: 'Actually it’s Lisbon, not Berlin.',
      corrected: 'I live in Lisbon.',
      note: /^The user lives in Berlin\.$/,
    },
    {
      user: 'correct-zh',
      said: '我在北京工作。',
      correction: '其实是上海，不是北京。',
      corrected: '我在上海工作。',
      note: /^用户在北京工作。$/,
    },
  ])('$user: the corrected memory stays the answer; the older note is kept as history', async (c) => {
    const session = `${c.user}-s1`;
    const turns: TurnInput[] = [
      { user_id: c.user, role: 'user', content: c.said },
      { user_id: c.user, role: 'assistant', content: 'Noted.' },
      { user_id: c.user, role: 'user', content: c.correction },
    ];
    await stack.client.appendTurns(session, turns);
    // What the agent does on a correction: write the memory corrected, through the same write path, now.
    const written = await stack.client.store({
      content: c.corrected,
      memory_type: 'fact',
      user_id: c.user,
      session_id: session,
    });
    expect(written.status).toBe('created');

    const ended = await stack.client.endSession(session, c.user);
    const job = await stack.waitForJob(ended.job_id, ['completed', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    expect((job.result as ConsolidationResult).superseded).toBe(0);

    const memories = await semanticOf(c.user);
    const note = memories.find((m) => c.note.test(m.content)) as MemoryRecord;
    expect(note, JSON.stringify(memories.map((m) => m.content))).toBeDefined();
    expect(note).toMatchObject({ status: 'superseded', superseded_by: written.id, valid_until: expect.any(String) });
    expect(note.source).toMatchObject({ kind: 'consolidation', session_id: session, turn_ids: ['t1'] });
    expect(note.history[0]).toMatchObject({
      action: 'created',
      note: expect.stringMatching(new RegExp(`^superseded on arrival by ${written.id}: said at `)),
      reason: expect.stringMatching(/^rule:.+:older$/),
    });
    const corrected = memories.find((m) => m.id === written.id);
    expect(corrected).toMatchObject({ status: 'active', content: c.corrected, superseded_by: null });

    // The next session asks: the correction is what search answers, the old value is not among the active memories.
    const found = await stack.client.search({ query: c.corrected, user_id: c.user, top_k: 5 });
    expect(found.results[0]?.id).toBe(written.id);
    expect(found.results.map((r) => r.id)).not.toContain(note.id);
  });
});
