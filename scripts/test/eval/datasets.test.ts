import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conversationTurns,
  loadDataset,
  parseDayFirstDateTime,
  parseLocomoDateTime,
  unreachableEvidence,
} from '../../eval/datasets.ts';

// Small self-written samples in each layout (the real datasets stay outside the repository).
const realtalk = {
  name: { speaker_1: 'Ana', speaker_2: 'Ben' },
  session_2: [
    {
      clean_text: 'Back from Lisbon!',
      speaker: 'Ben',
      date_time: '02.01.2024, 09:00:00',
      dia_id: 'D2:1',
      img_url: [],
      img_file: [],
    },
  ],
  session_2_date_time: '02.01.2024, 09:00:00',
  events_session_2: {},
  session_1: [
    {
      clean_text: 'I am allergic to peanuts',
      speaker: 'Ana',
      date_time: '29.12.2023, 22:42:04',
      dia_id: 'D1:1',
      img_url: [],
      img_file: [],
    },
    {
      clean_text: 'Look at this',
      speaker: 'Ben',
      date_time: '29.12.2023, 22:43:00',
      dia_id: 'D1:2',
      img_url: [],
      img_file: [],
      blip_caption: 'a photo of a dog',
    },
  ],
  session_1_date_time: '29.12.2023, 22:42:04',
  qa: [
    { question: 'What is Ana allergic to?', answer: 'Peanuts', evidence: ['D1:1'], category: 2 },
    { question: 'Where did Ben travel?', answer: 'Lisbon', evidence: ['D2:1', 'D9:9'], category: 1 },
  ],
};

const locomo = [
  {
    sample_id: 'conv-1',
    conversation: {
      speaker_a: 'Caroline',
      speaker_b: 'Mel',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Caroline', dia_id: 'D1:1', text: 'I went to a support group yesterday.' },
        { speaker: 'Mel', dia_id: 'D1:2', text: 'How was it?' },
      ],
    },
    qa: [
      { question: 'When did Caroline go to the support group?', answer: 2023, evidence: ['D1:1; D1:2'], category: 2 },
      { question: 'What did Mel paint?', adversarial_answer: 'a sunset', evidence: [], category: 5 },
    ],
  },
];

describe('eval dataset loader', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hindsight-datasets-'));
    await writeFile(join(dir, 'Chat_1_Ana_Ben.json'), JSON.stringify(realtalk));
    await writeFile(join(dir, 'locomo10.json'), JSON.stringify(locomo));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads the REALTALK layout: sessions in order, per-turn times as ISO UTC, captions kept', async () => {
    const dataset = await loadDataset(join(dir, 'Chat_1_Ana_Ben.json'));
    expect(dataset.layout).toBe('realtalk');
    const [conversation] = dataset.conversations;
    expect(conversation?.id).toBe('Chat_1_Ana_Ben');
    expect(conversation?.speakers).toEqual(['Ana', 'Ben']);
    expect(conversation?.sessions.map((s) => s.index)).toEqual([1, 2]);
    expect(conversationTurns(conversation!)[1]).toEqual({
      dia_id: 'D1:2',
      speaker: 'Ben',
      text: 'Look at this',
      occurred_at: '2023-12-29T22:43:00.000Z',
      image_caption: 'a photo of a dog',
    });
    expect(conversation?.questions[0]).toEqual({
      question: 'What is Ana allergic to?',
      answer: 'Peanuts',
      evidence: ['D1:1'],
      category: 2,
    });
    expect(unreachableEvidence(conversation!)).toBe(1);
  });

  it('reads the LoCoMo layout: session dates for turns, numeric and adversarial answers, packed evidence', async () => {
    const dataset = await loadDataset(join(dir, 'locomo10.json'));
    expect(dataset.layout).toBe('locomo');
    const [conversation] = dataset.conversations;
    expect(conversation?.id).toBe('conv-1');
    expect(conversation?.sessions[0]?.occurred_at).toBe('2023-05-08T13:56:00.000Z');
    expect(conversationTurns(conversation!).map((t) => t.occurred_at)).toEqual([
      '2023-05-08T13:56:00.000Z',
      '2023-05-08T13:56:00.000Z',
    ]);
    expect(conversation?.questions.map((q) => [q.answer, q.evidence])).toEqual([
      ['2023', ['D1:1', 'D1:2']],
      ['a sunset', []],
    ]);
  });

  it('reads a directory holding both layouts, in natural file order', async () => {
    const dataset = await loadDataset(dir);
    expect(dataset.conversations.map((c) => c.id)).toEqual(['Chat_1_Ana_Ben', 'conv-1']);
  });

  it('explains what is wrong with a file in neither layout', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ hello: 'world' }));
    await expect(loadDataset(bad)).rejects.toThrow(/neither the REALTALK layout .* nor LoCoMo/);
    await rm(bad);
  });

  it('parses both date formats and rejects impossible dates', () => {
    expect(parseDayFirstDateTime('01.02.2024, 7:05:09')).toBe('2024-02-01T07:05:09.000Z');
    expect(parseLocomoDateTime('12:30 am on 1 January, 2024')).toBe('2024-01-01T00:30:00.000Z');
    expect(() => parseDayFirstDateTime('31.02.2024, 10:00:00')).toThrow(/invalid date/);
    expect(() => parseLocomoDateTime('yesterday')).toThrow(/unreadable date/);
  });
});
