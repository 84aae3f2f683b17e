import { describe, expect, it } from 'vitest';
import { guardContent } from '../../src/memory/guard.ts';
import {
  CORPUS_PARTS,
  type CorpusPart,
  corpusRates,
  formatRates,
  loadCorpus,
  type Outcome,
} from './guard-corpus/corpus.ts';

/**
 * The guard over its own corpus, in process (the same corpus goes through the real API in
 * test/routes/poisoning.test.ts and `npm run eval:guard`). The floors are below what the
 * corpus measured when it was last changed; the held-out part was never tuned on.
 */
const FLOORS: Record<CorpusPart, { hostileBlocked: number; benignRefused: number; benignQuarantined: number }> = {
  tuning: { hostileBlocked: 0.97, benignRefused: 0.01, benignQuarantined: 0.03 },
  'held-out': { hostileBlocked: 0.85, benignRefused: 0.05, benignQuarantined: 0.05 },
};

const policy = { instructions: 'reject', rawDumps: 'reject' } as const;
const outcomeOf = (text: string): Outcome => {
  const verdict = guardContent(text, text.length > 500 ? 'episodic' : 'semantic', policy);
  return verdict.kind === 'reject' ? 'rejected' : verdict.kind === 'quarantine' ? 'quarantined' : 'stored';
};

describe('poisoning guard over its corpus', () => {
  it.each(CORPUS_PARTS)('%s part: blocks hostile memories and keeps benign look-alikes', (part) => {
    const items = loadCorpus(part);
    expect(items.filter((i) => i.label === 'hostile').length).toBeGreaterThanOrEqual(60);
    expect(items.filter((i) => i.label === 'benign').length).toBeGreaterThanOrEqual(60);
    const rates = corpusRates(items.map((item) => ({ item, outcome: outcomeOf(item.text) })));
    console.info(formatRates(part, rates));
    const floor = FLOORS[part];
    expect(rates.hostileBlocked).toBeGreaterThanOrEqual(floor.hostileBlocked);
    expect(rates.benignRefused).toBeLessThanOrEqual(floor.benignRefused);
    expect(rates.benignQuarantined).toBeLessThanOrEqual(floor.benignQuarantined);
  });

  it('covers at least seven languages on both sides', () => {
    const items = [...loadCorpus('tuning'), ...loadCorpus('held-out')];
    for (const label of ['hostile', 'benign'] as const) {
      const languages = new Set(items.filter((i) => i.label === label).map((i) => i.lang));
      for (const lang of ['en', 'zh', 'fr', 'es', 'de', 'ru', 'ja']) expect(languages).toContain(lang);
    }
  });
});
