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
