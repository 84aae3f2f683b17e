import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectEvalKind } from '../../eval/kinds.ts';
import { hitSummary, loadPersonalFacts, runPersonalFacts, sharedContentTerms } from '../../eval/personal-facts.ts';
import { renderPersonalFactsHtml } from '../../eval/personal-facts-report.ts';

const shipped = fileURLToPath(new URL('../../eval/fixtures/personal-facts', import.meta.url));
const realtalkFixture = fileURLToPath(new URL('../fixtures/realtalk', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hindsight-personal-facts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the shipped personal-facts fixture', () => {
  it('has a tuning split and seventeen held-out splits, 100+ facts in English and Chinese on everyday topics', async () => {
    const splits = await loadPersonalFacts(shipped);
    expect(splits.map((s) => s.split).sort()).toEqual([
      'blind-10',
      'blind-11',
      'blind-12',
      'blind-13',
      'blind-14',
      'blind-15',
      'blind-16',
      'blind-17',
      'blind-2',
      'blind-3',
      'blind-4',
      'blind-5',
      'blind-6',
      'blind-7',
      'blind-8',
      'blind-9',
      'held-out',
      'tune',
    ]);
    const people = splits.flatMap((s) => s.people);
    const facts = people.flatMap((p) => p.facts);
    expect(facts.length).toBeGreaterThanOrEqual(100);
    expect(new Set(people.map((p) => p.language))).toEqual(new Set(['en', 'zh']));
    const topics = new Set(facts.map((f) => f.topic));
    for (const topic of ['job', 'family', 'pets', 'health', 'plans', 'preferences']) expect(topics).toContain(topic);
    // Held-out people are not tuning people under another name.
    const tuneIds = new Set(splits.find((s) => s.split === 'tune')?.people.map((p) => p.id));
    for (const person of splits.filter((s) => s.split !== 'tune').flatMap((s) => s.people))
      expect(tuneIds).not.toContain(person.id);
  });

  it('asks most questions without a content word of their fact', async () => {
    for (const split of await loadPersonalFacts(shipped)) {
      const questions = split.people.flatMap((p) =>
        p.facts.flatMap((f) => f.questions.map((q) => sharedContentTerms(q, f.content, p.name))),
      );
      const disjoint = questions.filter((shared) => shared.length === 0).length;
      expect(disjoint / questions.length).toBeGreaterThan(0.6);
      // …but not all: some real questions do repeat a word of the answer.
      expect(disjoint).toBeLessThan(questions.length);
    }
  });

  it('never asks one question of two facts of the same person', async () => {
    for (const split of await loadPersonalFacts(shipped)) {
      for (const person of split.people) {
        const asked = person.facts.flatMap((f) => f.questions.map((q) => q.toLowerCase()));
        expect(new Set(asked).size).toBe(asked.length);
      }
    }
  });
});

describe('personal-facts files', () => {
  it('counts shared words as stems and CJK bigrams, leaving out stop words and the name', () => {
    expect(sharedContentTerms('What is Maya allergic to?', 'Maya is allergic to peanuts.', 'Maya')).toEqual(['allerg']);
    expect(sharedContentTerms('What instrument is she studying?', 'Maya is learning the cello.', 'Maya')).toEqual([]);
    expect(sharedContentTerms('王芳的生日是哪天？', '王芳的生日是十月八号。', '王芳')).toContain('生日');
  });

  it('are refused with the file and the problem named', async () => {
    const file = join(dir, 'broken.json');
    const fact = { id: 'a', topic: 'job', memory_type: 'fact', content: 'Works as a baker.', questions: ['job?'] };
    await writeFile(
      file,
      JSON.stringify({
        kind: 'personal-facts',
        split: 'x',
        people: [{ id: 'p', name: 'P', language: 'en', facts: [fact, fact] }],
      }),
    );
    await expect(loadPersonalFacts(file)).rejects.toThrow(/broken\.json.*\n.*fact id "a" appears twice/);
  });

  it('are told apart from conversation datasets by their content', async () => {
    expect((await detectEvalKind(shipped)).name).toBe('personal-facts');
    expect((await detectEvalKind(realtalkFixture)).name).toBe('conversations');
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ hello: 'world' }));
    await expect(detectEvalKind(other)).rejects.toThrow(/not a dataset of any eval kind/);
  });

  it('summarises 1-based ranks as hit rates and MRR', () => {
    expect(hitSummary([1, 2, 4, 0])).toEqual({ questions: 4, hit1: 0.25, hit3: 0.5, hit10: 0.75, mrr: 0.438 });
  });
});

describe('npm run eval on personal facts (a real memory-api child process)', () => {
  it('stores every fact for its own user, asks every question and scores hindsight beside BM25', async () => {
    const fact = (id: string, content: string, question: string) => ({
      id,
      topic: 'everyday',
      memory_type: 'fact',
      content,
      questions: [question],
    });
    const cello = fact('cello', 'Ann plays the cello', 'cello');
    const file = join(dir, 'small.json');
    await writeFile(
      file,
      JSON.stringify({
        kind: 'personal-facts',
        split: 'small',
        people: [
          {
            id: 'ann',
            name: 'Ann',
            language: 'en',
            facts: [cello, fact('peanuts', 'Ann is allergic to peanuts', 'peanuts allergic')],
            unanswerable: ['quantum chromodynamics'],
          },
          {
            id: 'bo',
            name: 'Bo',
            language: 'en',
            // Bo's fact is word for word Ann's: each user must get back only their own memory.
            facts: [cello],
          },
        ],
      }),
    );
    const result = await runPersonalFacts({ dataset: file, progress: false });
    expect(result.dataset).toMatchObject({ people: 2, facts: 3, questions: 3, unanswerable: 1 });
    expect(result.writes.created).toBe(3);
    expect(result.bySplit.small?.hindsight).toMatchObject({ questions: 3, hit1: 1, mrr: 1 });
    expect(result.bySplit.small?.bm25).toMatchObject({ questions: 3, hit1: 1 });
    expect(result.unanswerable).toHaveLength(1);
    const html = renderPersonalFactsHtml(result);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|<link[^>]+href=/);
  }, 120_000);
});
