import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from './support/processes.ts';
import { type ChatAnswer, type Stack, startStack } from './support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const DONT_KNOW_EN = /^I don't know\b/;
const DONT_KNOW_ZH = /^我不知道/;

/** Tells `told` in session 1, ends it (the worker consolidates), and returns a chat function for session 2. */
async function afterOneSession(user: string, told: string[]) {
  const acknowledgements: string[] = [];
  for (const message of told) acknowledgements.push((await stack.chat(user, `${user}-s1`, message)).reply);
  await stack.endSession(user, `${user}-s1`);
  return {
    acknowledgements,
    ask: (message: string) => stack.chat(user, `${user}-s2`, message),
  };
}

const contents = (answer: ChatAnswer) => answer.memories_used.map((m) => m.content);

describe('end to end across real processes: agent → MCP → memory-api → store, worker consolidating', () => {
  it('answers questions, requests and statements in a new session from what was told in the last (English)', async () => {
    const liam = await afterOneSession('e2e-liam', [
      "Hi! I'm allergic to peanuts.",
      'My daughter is called Mia and she is seven.',
      'I work as a nurse at the city hospital.',
      "I'm vegetarian.",
      'I hate olives.',
      "My wife's name is Sara.",
      'I have two cats.',
      'I drive a Toyota Corolla.',
      'Thanks, that is all for today.',
    ]);
    // Statements are acknowledged with what was understood, never as questions.
    expect(liam.acknowledgements.slice(0, 3)).toEqual([
      "Noted: you're allergic to peanuts.",
      'Noted: your daughter is called Mia and she is seven.',
      'Noted: you work as a nurse at the city hospital.',
    ]);
    expect(liam.acknowledgements[8]).toBe("You're welcome!");

    const allergies = await liam.ask('Do I have any allergies?');
    expect(allergies.reply).toBe("You told me you're allergic to peanuts.");
    expect(allergies.memories_used).toEqual([
      expect.objectContaining({ content: expect.stringMatching(/allergic to peanuts/), layer: 'semantic' }),
    ]);

    const daughter = await liam.ask("What is my daughter's name?");
    expect(daughter.reply).toBe('You told me your daughter is called Mia and she is seven.');
    // The wife's name scores close to the daughter's for this question; it does not answer it.
    expect(contents(daughter).join(' ')).not.toMatch(/Sara/);

    expect((await liam.ask('Can you remind me what I do for work?')).reply).toMatch(
      /^You told me you work as a nurse at the city hospital\.$/,
    );
    expect((await liam.ask("What's my wife called?")).reply).toBe("You told me your wife's name is Sara.");
    expect((await liam.ask('How many cats do I have?')).reply).toBe('You told me you have two cats.');
    expect((await liam.ask('How old is my daughter?')).reply).toMatch(/seven/);
    expect((await liam.ask('What car do I have?')).reply).toBe('You told me you drive a Toyota Corolla.');
    expect((await liam.ask('Do I eat meat?')).reply).toBe("You told me you're vegetarian.");

    const snack = await liam.ask('Any idea what snack I could bring to the party?');
    expect(snack.reply).toMatch(
      /^Since you told me you're allergic to peanuts, you're vegetarian and you hate olives, how about /,
    );
    expect(snack.reply).not.toMatch(/peanut butter|trail mix|olive skewers|ham|shrimp/);
    expect(contents(snack).join(' ')).toMatch(/peanuts[\s\S]*vegetarian[\s\S]*olives/);

    // Nothing told answers these: said plainly, nothing invented, nothing used.
    for (const unknown of [
      "What's my mother's name?",
      'Where did I go to university?',
      'What is my favourite colour?',
    ]) {
      const answer = await liam.ask(unknown);
      expect(answer.reply, unknown).toMatch(DONT_KNOW_EN);
      expect(answer.memories_used, unknown).toEqual([]);
    }

    // New statements and a correction in session 2 are acknowledged as such.
    expect((await liam.ask('My son Leo just started school.')).reply).toBe('Noted: your son Leo just started school.');
    expect((await liam.ask("Actually it's Lisbon, not Berlin.")).reply).toBe(
      "Thanks for the correction — noted: it's Lisbon, not Berlin.",
    );
  }, 180_000);

  it('does the same in Chinese', async () => {
    const mei = await afterOneSession('e2e-mei', [
      '你好，我对虾过敏。',
      '我住在成都。',
      '我女儿叫小美，今年八岁。',
      '我在一家银行工作。',
      '我喜欢喝绿茶。',
      '好的，谢谢。',
    ]);
    expect(mei.acknowledgements).toEqual([
      '好的，记下了：你对虾过敏。',
      '好的，记下了：你住在成都。',
      '好的，记下了：你女儿叫小美，今年八岁。',
      '好的，记下了：你在一家银行工作。',
      '好的，记下了：你喜欢喝绿茶。',
      '不客气！',
    ]);
    expect((await mei.ask('我住在哪里？')).reply).toBe('你跟我说过：你住在成都。');
    expect((await mei.ask('我女儿叫什么名字？')).reply).toBe('你跟我说过：你女儿叫小美，今年八岁。');
    expect((await mei.ask('我是做什么工作的？')).reply).toBe('你跟我说过：你在一家银行工作。');
    expect((await mei.ask('我对什么过敏？')).reply).toBe('你跟我说过：你对虾过敏。');
    expect((await mei.ask('我喜欢喝什么？')).reply).toBe('你跟我说过：你喜欢喝绿茶。');

    const snack = await mei.ask('给我推荐一个零食吧');
    expect(snack.reply).toMatch(/^你跟我说过你对虾过敏，所以我照这个来挑。可以试试/);
    expect(snack.reply.match(/虾/g)).toHaveLength(1);
    expect(snack.memories_used.some((m) => /虾/.test(m.content) && m.layer === 'semantic')).toBe(true);

    const unknown = await mei.ask('我妈妈叫什么名字？');
    expect(unknown.reply).toMatch(DONT_KNOW_ZH);
    expect(unknown.memories_used).toEqual([]);
    expect((await mei.ask('其实我住在上海，不是成都。')).reply).toBe('谢谢指正，已更正：你住在上海，不是成都。');
  }, 180_000);

  it('honours standing preferences told in an earlier session: short answers, the reply language', async () => {
    const ana = await afterOneSession('e2e-ana', [
      'Please keep your answers short.',
      'I live in Porto.',
      "I'm a software engineer.",
    ]);
    expect(ana.acknowledgements[0]).toBe("Sure — from now on I'll keep my answers short.");
    expect((await ana.ask('Where do I live?')).reply).toBe('You live in Porto.');

    const wang = await afterOneSession('e2e-wang', ['请用中文回答我。', 'I have a dog called Rex.']);
    expect(wang.acknowledgements[0]).toBe('好的，以后我会用中文回答你。');
    expect((await wang.ask("What's my dog called?")).reply).toMatch(/^你跟我说过：.*Rex/);
    expect((await wang.ask('What is my brother called?')).reply).toMatch(DONT_KNOW_ZH);
  }, 180_000);

  it('answers from what was said earlier in the same session, before it is consolidated', async () => {
    await stack.chat('e2e-zoe', 'e2e-zoe-s1', 'My brother Sam lives in Toronto.');
    const asked = await stack.chat('e2e-zoe', 'e2e-zoe-s1', 'Where does my brother live?');
    expect(asked.reply).toBe('You told me your brother Sam lives in Toronto.');
    expect(asked.memories_used).toEqual([expect.objectContaining({ layer: 'working' })]);
    // The question itself is not a memory that answers it.
    expect((await stack.chat('e2e-zoe', 'e2e-zoe-s1', 'Where do I live?')).reply).toMatch(DONT_KNOW_EN);
  }, 60_000);

  it('answers other phrasings of the same questions, and suggestions that are not about food', async () => {
    const ivy = await afterOneSession('e2e-ivy', [
      "I'm married to Ben and we have two kids.",
      'My sister Ruth lives in Dublin.',
      'I play the cello in my free time.',
      'I speak French and Italian.',
      '我是四川人。',
    ]);
    expect((await ivy.ask('Am I married?')).reply).toMatch(/married to Ben/);
    expect((await ivy.ask('Do I have any siblings?')).reply).toMatch(/sister Ruth lives in Dublin/);
    expect((await ivy.ask('Do I have children?')).reply).toMatch(/two kids/);
    expect((await ivy.ask('What are my hobbies?')).reply).toMatch(/cello/);
    expect((await ivy.ask('Which languages do I speak?')).reply).toMatch(/French and Italian/);
    expect((await ivy.ask('我是哪里人？')).reply).toBe('你跟我说过：你是四川人。');
    expect((await ivy.ask('How old am I?')).reply).toMatch(DONT_KNOW_EN);
    expect((await ivy.ask('Where do I live?')).reply).toMatch(DONT_KNOW_EN);
    const gift = await ivy.ask('What should I get my sister for her birthday?');
    expect(gift.reply).toMatch(/^Keeping in mind that you told me your sister Ruth lives in Dublin/);
    expect((await ivy.ask('Can you suggest a film for tonight?')).reply).toMatch(/^I don't know your tastes there yet/);
  }, 120_000);

  it('writes a correction into memory, so the sessions after it know the right thing', async () => {
    const kim = await afterOneSession('e2e-kim', ['I live in Berlin.', 'My daughter is seven.', '我在北京工作。']);
    expect((await kim.ask("Actually it's Lisbon, not Berlin.")).reply).toBe(
      'Thanks for the correction — noted: you live in Lisbon, not Berlin.',
    );
    expect((await kim.ask('My daughter is eight, not seven.')).reply).toBe(
      'Thanks for the correction — noted: your daughter is eight, not seven.',
    );
    expect((await kim.ask('其实我在上海工作，不是北京。')).reply).toBe('谢谢指正，已更正：你在上海工作，不是北京。');
    await stack.endSession('e2e-kim', 'e2e-kim-s2');
    const later = (message: string) => stack.chat('e2e-kim', 'e2e-kim-s3', message);
    expect((await later('Where do I live?')).reply).toBe('You told me you live in Lisbon.');
    // The worker keeps the correction's own words too ("eight, not seven"); "seven" alone is gone.
    expect((await later('How old is my daughter?')).reply).toMatch(
      /^You told me your daughter is eight(, not seven)?\.$/,
    );
    // The worker may keep the correction's own words as a note too; either way Shanghai is told, Beijing not as the answer.
    const work = (await later('我在哪里工作？')).reply;
    expect(work).toMatch(/^你跟我说过：你在上海工作/);
    expect(work).not.toMatch(/你在北京工作/);
  }, 120_000);

  it('dates what was told on an earlier day', async () => {
    const stored = await postJson(
      `${stack.memoryApi.url}/v1/memories`,
      {
        content: 'The user is allergic to peanuts.',
        memory_type: 'fact',
        user_id: 'e2e-omar',
        occurred_at: '2025-03-03T10:00:00.000Z',
      },
      { authorization: `Bearer ${stack.deployment.apiKey}` },
    );
    expect(stored.status).toBe(201);
    expect((await stack.chat('e2e-omar', 'e2e-omar-s1', 'What am I allergic to?')).reply).toBe(
      "On 3 March 2025 you told me you're allergic to peanuts.",
    );
    expect((await stack.chat('e2e-omar', 'e2e-omar-s1', '我对什么过敏？')).reply).toBe(
      "你在2025年3月3日跟我说过：you're allergic to peanuts.",
    );
  }, 60_000);
});
