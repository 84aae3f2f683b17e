import type { Turn } from '@hindsight/memory-model';
import { describe, expect, it } from 'vitest';
import { guardExtraction, isDegenerate } from '../../src/extraction/guard.ts';
import { ExtractionError } from '../../src/extraction/port.ts';
import { RuleExtractor } from '../../src/extraction/rules.ts';

const turn = (seq: number, role: Turn['role'], content: string, timestamp = '2026-01-01T10:00:00.000Z'): Turn => ({
  id: `t${seq}`,
  seq,
  role,
  content,
  timestamp,
});

/** A session as the worker loads it: user and assistant turns a minute apart from `start`. */
function session(start: string, ...lines: Array<[Turn['role'], string]>): Turn[] {
  return lines.map(([role, content], i) =>
    turn(i + 1, role, content, new Date(Date.parse(start) + i * 60_000).toISOString()),
  );
}

async function extractFrom(...lines: Array<[Turn['role'], string]>) {
  return (await new RuleExtractor().extract(session('2026-03-02T09:00:00.000Z', ...lines))).items;
}

describe('rule extractor (compromise + jieba)', () => {
  it.each([
    ["I'm allergic to peanuts.", 'fact', /allergic to peanuts/],
    ["I can't eat shellfish, I'm allergic.", 'fact', /allergic to shellfish/],
    ['Mushrooms make me sick.', 'fact', /not tolerate Mushrooms|mushrooms/i],
    ['Please keep answers short.', 'preference', /keep answers short/],
    ['Always include an answer key at the end.', 'preference', /always include an answer key/],
    ['Metric units only please.', 'preference', /metric units only/i],
    [
      'Remind me to renew my passport next month.',
      'commitment',
      /reminded to renew (their|the user's) passport next month \(next month: April 2026\)/,
    ],
    ['I love coffee', 'preference', /^The user loves coffee\.$/],
    ["I don't like horror movies", 'preference', /does not like horror movies/],
    ['My name is Ada Lovelace', 'fact', /name is Ada Lovelace/],
    ['I work as a nurse', 'fact', /works as a nurse/],
    ['We decided to use Postgres', 'decision', /decided to use Postgres/],
    ["Let's not do the JR pass.", 'decision', /decided not to .*JR pass/],
    ["I'm moving to Hangzhou next month.", 'fact', /moving to Hangzhou next month \(next month: April 2026\)/],
    ['Budget is around 200 dollars a night.', 'fact', /budget is around 200 dollars a night/],
    ['Our startup is called Clinicly.', 'fact', /startup is called Clinicly/],
    ['我对花生过敏', 'fact', /花生过敏/],
    ['请用中文回答', 'preference', /中文/],
    ['提醒我下个月续签护照', 'commitment', /续签护照.*2026年4月/],
    ['我下个月要搬家到杭州', 'fact', /杭州.*下个月：2026年4月/],
    ['我有一只猫，叫豆豆', 'fact', /豆豆/],
    // Allergies and intolerances however they are put.
    ['Ibuprofen is a no-go for me, it wrecks my stomach.', 'fact', /does not tolerate Ibuprofen/],
    ["Dairy really doesn't agree with me.", 'fact', /does not tolerate Dairy/],
    ['Walnuts give me hives.', 'fact', /does not tolerate Walnuts/],
    ['我一喝牛奶就拉肚子', 'fact', /用户吃牛奶会拉肚子/],
    ['虾我吃了身上就起疹子', 'fact', /用户吃虾会起疹子/],
    // A change names what it replaces; a decision not to do something keeps its verb.
    ['My GP switched me from metformin to gliclazide.', 'fact', /switched the user from metformin to gliclazide/],
    ["Let's not renew the gym membership.", 'decision', /^The user decided not to renew the gym membership\.$/],
    // People by their role, facts about the user's world, instructions to leave things out.
    ['A tutor called Marta Lopez helps me with calculus.', 'fact', /Marta Lopez/],
    ['Returns are 12 percent of our orders.', 'fact', /mentioned that returns are 12 percent of their orders/i],
    ['Please skip the caveats.', 'preference', /skip the caveats/],
    ['仓库里有两台叉车，主管叫老王', 'fact', /用户提到，仓库里有两台叉车，主管叫老王/],
    [
      'Our bookkeeper Priya Nair files the VAT returns.',
      'fact',
      /^The user's bookkeeper Priya Nair files the VAT returns\.$/,
    ],
    ["Let's not consider Zurich after all.", 'decision', /^The user decided not to consider Zurich\.$/],
    ['给我解释的时候多举几个例子', 'preference', /举几个例子/],
  ])('extracts %j', async (text, category, value) => {
    const items = await extractFrom(['user', text]);
    const item = items.find((i) => i.category === category && value.test(i.value));
    expect(item, JSON.stringify(items)).toBeDefined();
    expect(item?.query).toMatch(/[?？]$/);
    expect(item?.key).toMatch(/^[a-z]+\./);
    expect(item?.value).not.toMatch(/\b(I|me|my)\b|^我/);
  });

  it.each([
    ["I'm 34 years old.", 'The user is 34 years old.'],
    ["I'm 34.", 'The user is 34 years old.'],
    ['I love hiking and rock climbing.', 'The user loves hiking and rock climbing.'],
    ['I rock climb on Sundays.', 'The user rock climbs on Sundays.'],
    ['I usually hike or rock climb on Saturdays.', 'The user usually hikes or rock climbs on Saturdays.'],
    ['I ice skate in winter.', 'The user ice skates in winter.'],
    ["I'm allergic to gluten — badly.", 'The user is allergic to gluten; never suggest anything that contains gluten.'],
    [
      "I'm allergic to gluten—it's awful.",
      'The user is allergic to gluten; never suggest anything that contains gluten.',
    ],
    ["I can't eat gluten – it makes me sick.", 'The user can not eat gluten, it makes them sick.'],
  ])('writes %j as a clean sentence', async (text, value) => {
    const items = await extractFrom(['user', text]);
    expect(
      items.map((i) => i.value),
      JSON.stringify(items),
    ).toContain(value);
    for (const item of items) expect(item.answer).not.toMatch(/[\s\p{Pd}]$/u);
  });

  it.each([
    ['Please always answer me in English.'],
    ['我住在北京。Please always answer me in English.'],
    ['Please always answer me in English. 我在上海工作。'],
  ])('keeps the standing instruction of %j as a preference, whatever language is around it', async (text) => {
    const items = await extractFrom(['user', text]);
    expect(items.find((i) => i.category === 'preference' && /answer the user in English/.test(i.value))).toMatchObject({
      key: 'preference.language',
      value: 'The user wants the assistant to always answer the user in English.',
    });
    // The Chinese sentence of the turn is still read as Chinese.
    if (/北京|上海/.test(text)) expect(items.some((i) => /^用户(?:住|在)/.test(i.value))).toBe(true);
  });

  it.each([
    'Hi there!',
    'Thanks!',
    'ok',
    'The weather is lovely today',
    "I'm in a meeting right now",
    "What's the capital of France?",
    'Can you suggest a snack for the afternoon?',
    'I need a gift idea.',
    'I like it',
    '你好！',
    '今天天气真好',
    '我在开会',
    '谢谢',
  ])('keeps nothing of small talk, transient state, questions and requests: %j', async (text) => {
    expect(await extractFrom(['user', text])).toEqual([]);
  });

  it('reads only the user’s turns and cites the turn an item came from', async () => {
    const items = await extractFrom(
      ['user', 'Hello!'],
      ['assistant', "I'm allergic to nothing, I am an assistant. I love helping."],
      ['user', "Great. I'm allergic to shellfish. Remind me to call mom."],
      ['tool', 'I love tool output'],
    );
    expect(items.map((i) => [i.category, i.turn_ids])).toEqual([
      ['fact', ['t3']],
      ['commitment', ['t3']],
    ]);
  });

  it('keeps a short reply together with the question it answers, but not a bare yes or "not now"', async () => {
    const items = await extractFrom(
      ['assistant', 'Congratulations! How many guests?'],
      ['user', 'Around 120. My fiancée Sofia wants something outdoors.'],
      ['assistant', 'Shall I find guesthouses?'],
      ['user', 'Not now.'],
      ['assistant', '想去哪些城市？'],
      ['user', '大理和丽江'],
    );
    expect(items.map((i) => i.value)).toEqual([
      'Asked "How many guests?", the user answered: Around 120.',
      "The user's fiancée Sofia wants something outdoors.",
      '被问到“想去哪些城市？”时，用户回答：大理和丽江。',
    ]);
    expect(items[0]).toMatchObject({ query: 'How many guests?', turn_ids: ['t2'] });
  });

  it('links people to the user and reads what is said of them later', async () => {
    const items = await extractFrom(
      ['user', 'My wife Priya is coming too.'],
      ['assistant', 'Lovely.'],
      ['user', 'Priya is vegetarian.'],
    );
    expect(items.map((i) => i.value)).toEqual([
      "The user's wife Priya is coming too.",
      "Priya (the user's wife) is vegetarian.",
    ]);
  });

  it('keeps only the standing decision when the user reverses one, under the reversed one’s key', async () => {
    const items = await extractFrom(
      ['user', "Let's do Berlin."],
      ['assistant', 'Berlin it is.'],
      ['user', 'Hmm, actually, make that Lisbon instead.'],
    );
    const decisions = items.filter((i) => i.category === 'decision');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.value).toBe('The user decided to go with Lisbon.');
    expect(decisions[0]).toMatchObject({ key: 'decision.berlin', answer: 'Lisbon', replaces: 'Berlin' });
    expect(JSON.stringify(items)).not.toMatch(/decided to do Berlin/);
  });

  it('reads "him" as the latest one the user calls "he", not the latest one named', async () => {
    const items = await extractFrom(
      ['user', 'My son Theo is six.'],
      ['user', 'Our dentist is Dr. Ruth Adler.'],
      ['user', "Strawberries don't agree with him, he gets a rash."],
    );
    expect(items.find((i) => i.key === 'person.theo.allergy.strawberries')?.value).toMatch(/^Theo \(the user's son\)/);
    expect(items.some((i) => i.key.includes('ruth') && i.key.includes('allergy'))).toBe(false);
  });

  it('rewrites the figure of the note just taken when the user corrects it', async () => {
    const items = await extractFrom(['user', 'My daughter Ines is nine. She weighs 30 kilos. Sorry, 28 kilos.']);
    const weight = items.find((i) => /weighs/.test(i.value));
    expect(weight?.value).toBe("Ines (the user's daughter) weighs 28 kilos.");
    expect(JSON.stringify(items)).not.toMatch(/30 kilos/);
  });

  it('keeps the question of a verbose assistant turn with its short answer, and a title does not end a sentence', async () => {
    const items = await extractFrom(
      ['assistant', 'Do you train in the mornings or the evenings? Many people find mornings easier to keep up.'],
      ['user', 'Evenings, after the kids are asleep.'],
      ['assistant', 'How did the check-up go?'],
      ['user', 'Dr. Patel said my iron is low.'],
    );
    expect(items.map((i) => i.value)).toContain(
      'Asked "Do you train in the mornings or the evenings?", the user answered: Evenings, after the kids are asleep.',
    );
    expect(items.some((i) => /Patel said/.test(i.value))).toBe(true);
    expect(items.some((i) => /answered: Dr\.$/.test(i.value))).toBe(false);
  });

  it('leaves out of a Chinese reversal the option it takes back, and names it in replaces', async () => {
    const items = await extractFrom(['user', '窗帘先选了那家叫青禾的店，不过算了，还是改成木棉吧，青禾太远了。']);
    const decision = items.find((i) => i.category === 'decision');
    expect(decision?.value).toMatch(/木棉/);
    expect(decision?.value).not.toMatch(/青禾/);
    expect(decision).toMatchObject({ reverses: true, replaces: '青禾' });
  });

  it('takes an option the user rules out out of the notes that still offer it', async () => {
    const items = await extractFrom(
      ['assistant', 'Which cities are you comparing?'],
      ['user', 'First choice is Valencia, second is Bilbao.'],
      ['user', "Let's not consider Bilbao after all."],
    );
    expect(items.map((i) => i.value)).toEqual([
      'Asked "Which cities are you comparing?", the user answered: First choice is Valencia.',
      'The user decided not to consider Bilbao.',
    ]);
  });

  it('reads "算了，不…了" as a decision not to', async () => {
    const items = await extractFrom(['user', '本来想学吉他，算了，不学了。']);
    expect(items.find((i) => i.category === 'decision')).toMatchObject({ value: '用户决定不学了。', reverses: true });
  });

  it('reverses a Chinese decision the same way (算了…还是…)', async () => {
    const items = await extractFrom(
      ['user', '那就买音箱吧。'],
      ['assistant', '好的。'],
      ['user', '算了，还是送一个按摩椅垫吧。'],
    );
    const decisions = items.filter((i) => i.category === 'decision');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.value).toMatch(/按摩椅垫/);
    expect(decisions[0]?.value).not.toMatch(/音箱/);
  });

  it.each([
    ['ill-formed unicode', '\ud800 I am allergic to \udfff peanuts and I live in Oslo \udbff'],
    ['a word repeated', `I am allergic to ${'very '.repeat(300)}peanuts.`],
    ['a pasted JSON blob', JSON.stringify({ a: { b: { c: [1, 2, { d: 'I love coffee' }] } } })],
    ['a code block', '```ts\nconst me = "I am allergic to peanuts";\n```'],
    ['emoji only', '🙂🙂🙂👍'],
    ['one character over and over', '我'.repeat(3000)],
    ['a very long paste', 'I live in Leeds and my wife Priya is vegetarian. '.repeat(200)],
  ])('never fails the job on what a user may type: %s', async (_label, text) => {
    const items = await extractFrom(['user', text]);
    // Whatever it keeps passes the same output checks the worker applies.
    expect(() => guardExtraction(items, new Set(['t1']), new Set(['t1']))).not.toThrow();
    expect(guardExtraction(items, new Set(['t1']), new Set(['t1']))).toHaveLength(items.length);
  });

  it('is deterministic: the same session yields the same items (retries reuse their keys)', async () => {
    const lines: Array<[Turn['role'], string]> = [
      ['user', 'We have two kids, Maya is 7 and Tom is 4.'],
      ['user', '我们公司叫云帆科技，做餐厅的排队点餐小程序。'],
    ];
    expect(await extractFrom(...lines)).toEqual(await extractFrom(...lines));
  });
});

describe('extraction guard', () => {
  const item = {
    category: 'fact',
    key: 'k',
    query: 'What?',
    value: 'The user is allergic to peanuts.',
    confidence: 0.8,
    turn_ids: ['t1'],
  };

  it('merges exact repeats and keeps their provenance', () => {
    const items = guardExtraction([item, { ...item, turn_ids: ['t2'] }], new Set(['t1', 't2']));
    expect(items).toHaveLength(1);
    expect(items[0]?.turn_ids).toEqual(['t1', 't2']);
  });

  it.each([
    [{ ...item, category: 'gossip' }, /category/],
    [{ ...item, value: 'x'.repeat(201) }, /value/],
    [{ ...item, turn_ids: ['t9'] }, /not in the session/],
    [{ ...item, value: 'peanut peanut peanut peanut peanut peanut peanut peanut peanut' }, /degenerate/],
  ])('rejects bad output loudly: %j', (bad, message) => {
    expect(() => guardExtraction([bad], new Set(['t1']))).toThrow(ExtractionError);
    expect(() => guardExtraction([bad], new Set(['t1']))).toThrow(message);
  });

  it('leaves out items that cite only the assistant’s turns or speak in the first person', () => {
    const known = new Set(['t1', 't2']);
    const user = new Set(['t1']);
    const kept = guardExtraction(
      [
        item,
        { ...item, value: 'The assistant recommended Kreuzberg venues.', turn_ids: ['t2'] },
        { ...item, value: 'I am allergic to peanuts.' },
        { ...item, value: '我对花生过敏，不能吃花生。' },
      ],
      known,
      user,
    );
    expect(kept.map((i) => i.value)).toEqual(['The user is allergic to peanuts.']);
  });

  it('tells repetitive text from normal text, in English and Chinese', () => {
    expect(isDegenerate('The user is allergic to peanuts and avoids them in every meal.')).toBe(false);
    expect(isDegenerate('好的好的好的好的好的好的好的好的好的')).toBe(true);
    expect(isDegenerate('用户对花生过敏，推荐食物、饮品或药品时必须避开花生。')).toBe(false);
  });
});
