import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderEvalHtml } from '../../eval/report.ts';
import { runEval } from '../../eval/run.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

describe('npm run eval on the self-written fixtures (a real memory-api child process)', () => {
  it.each([
    ['LoCoMo layout', 'locomo.json'],
    ['REALTALK layout', 'realtalk'],
  ])(
    'ingests every turn, asks every question and scores hindsight beside BM25 (%s)',
    async (_layout, name) => {
      const result = await runEval({ dataset: fixture(name), ks: [1, 5, 10] });
      expect(result.dataset.questions).toBeGreaterThan(0);
      expect(result.ingest.memories + result.ingest.duplicates).toBe(result.dataset.turns);
      expect(result.ingest.rejected).toBe(0);
      // The fixtures' questions share words with their evidence: both systems must find it in the top 10.
      expect(result.hindsight.overall.recall[10]).toBe(1);
      expect(result.bm25.overall.recall[10]).toBe(1);
      expect(result.hindsight.overall.mrr).toBeGreaterThan(0);
      const html = renderEvalHtml(result);
      expect(html).toContain('<svg');
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    },
    120_000,
  );
});

describe('npm run eval: which conversations, and how their turns are written', () => {
  it('writes each turn through its own /store request with --ingest single and scores it like a batch', async () => {
    const [batch, single] = await Promise.all([
      runEval({ dataset: fixture('realtalk'), ks: [1, 5, 10] }),
      runEval({ dataset: fixture('realtalk'), ks: [1, 5, 10], ingest: 'single' }),
    ]);
    expect(batch.ingest.mode).toBe('batch');
    expect(single.ingest.mode).toBe('single');
    expect(single.ingest.memories + single.ingest.duplicates).toBe(single.dataset.turns);
    expect(single.ingest.memories).toBe(batch.ingest.memories);
    // The turn-context index is the same whichever way the turns arrived.
    expect(single.hindsight.overall.recall).toEqual(batch.hindsight.overall.recall);
    expect(single.hindsight.overall.mrr).toBe(batch.hindsight.overall.mrr);
  }, 120_000);

  it('asks only the conversations whose id matches --conversations (a tuning split kept apart from a blind one)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eval-split-'));
    try {
      const source = join(fixture('realtalk'), 'Chat_1_Ana_Ben.json');
      await copyFile(source, join(dir, 'Chat_1_Ana_Ben.json'));
      await copyFile(source, join(dir, 'Chat_2_Ana_Ben.json'));
      const all = await runEval({ dataset: dir, ks: [10] });
      const blind = await runEval({ dataset: dir, ks: [10], conversations: /^Chat_2_/ });
      expect(all.dataset.conversations).toBe(2);
      expect(blind.dataset.conversations).toBe(1);
      expect(blind.dataset.questions * 2).toBe(all.dataset.questions);
      expect(blind.dataset.turns * 2).toBe(all.dataset.turns);
      await expect(runEval({ dataset: dir, ks: [10], conversations: /^Chat_3_/ })).rejects.toThrow(/no conversation/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
