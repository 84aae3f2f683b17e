import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

let dataDir: string;
let embedder: ServiceProcess | undefined;
let api: ServiceProcess | undefined;

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * One conversation: the answer to the question shares none of its content words but the name
 * ("pet" ↔ "puppy"); a shorter turn with the name twice ranks above it without soft matching
 * (RANK_SOFT_MATCH_WEIGHT=0: 0.2153 against 0.1960 with builtin-v6).
 */
const TURNS = [
  'Elise: Kate, do you have time tomorrow?',
  'Kate: I have a meeting at ten, Kate from accounting has one too',
  'Elise: Kate, what does your sister do?',
  'Kate: my puppy chewed my shoes again this morning, so after breakfast I took him to the park near the river and we walked for an hour before work',
  'Elise: That sounds lovely. I spent the day cooking.',
  'Kate: The weather was rainy all weekend here',
];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-soft-match-'));
  const embedderPort = await freePort();
  embedder = await spawnService('embedder', { PORT: String(embedderPort) });
  api = await spawnService('memory-api', {
    DATA_DIR: dataDir,
    REDIS_PREFIX: `test-${randomUUID()}`,
    EMBEDDER_URL: `http://127.0.0.1:${embedderPort}`,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
});
afterAll(async () => {
  await api?.stop();
  await embedder?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('soft matching of conversation turns (memory-api → embedder service over HTTP)', () => {
  it('ranks the turn that answers a question in other words first among the turns of the conversation', async () => {
    const start = Date.parse('2026-11-02T10:00:00Z');
    const items = TURNS.map((content, i) => ({
      content,
      memory_type: 'episodic',
      user_id: 'kate-elise',
      session_id: 'chat-1',
      occurred_at: new Date(start + i * 60_000).toISOString(),
    }));
    const stored = await fetch(`${api?.url}/v1/memories`, json({ items }));
    expect(stored.status).toBe(201);

    const answer = (await (
      await fetch(`${api?.url}/retrieve`, json({ query: 'What pet does Kate have?', user_id: 'kate-elise', top_k: 3 }))
    ).json()) as { results: Array<{ content: string; score: number }> };
    expect(answer.results[0]?.content).toBe(TURNS[3]);
  });
});
