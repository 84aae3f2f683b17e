import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack.ts';

/**
 * A second dialogue set, written before the agent was run on it (its first run is the
 * blind figure in the agent's README): other people, other wording, the same promise —
 * every question answered from what was told in an earlier session, the unknown one
 * answered "I don't know", requests that respect what was said.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const DONT_KNOW = /don't know|不知道/;

type Check = [question: string, expected: RegExp, unexpected?: RegExp];

/** Tells `told` in one session, ends it, asks every check in the next; every miss is reported at once. */
async function dialogue(user: string, told: string[], checks: Check[]) {
  for (const message of told) await stack.chat(user, `${user}-a`, message);
  await stack.endSession(user, `${user}-a`);
  const misses: string[] = [];
  for (const [question, expected, unexpected] of checks) {
    const { reply } = await stack.chat(user, `${user}-b`, question);
    if (!expected.test(reply) || unexpected?.test(reply)) misses.push(`${question} → ${reply}`);
  }
  expect(misses).toEqual([]);
}

describe('a blind cross-session dialogue through POST /chat (real memory-api, worker, Redis)', () => {
  it('English', async () => {
    await dialogue(
      'blind-erin',
      [
        "Hello there! Just so you know, I can't eat gluten — I'm coeliac.",
        "My son's name is Oliver and he's twelve.",
        "I'm a high school chemistry teacher.",
        'We live in Manchester.',
        'I love spicy food.',
        'My partner Alex is a dentist.',
        "I've got a golden retriever called Biscuit.",
      ],
      [
        ["What's my son called?", /Oliver/],
        ['How old is Oliver?', /twelve/],
        ["What's my job again?", /teacher/],
        ['Which city do I live in?', /Manchester/],
        ['Could you tell me what my partner does?', /dentist/],
        ['What kind of dog do I have?', /golden retriever/],
        ["Any dietary restrictions I've mentioned?", /gluten|coeliac/],
        ['What should I make for dinner tonight?', /gluten|coeliac/, /bread|pasta|carbonara|cookie|brownie|cheesecake/],
        ["What's my sister's name?", DONT_KNOW],
        ['Do you remember where I went to university?', DONT_KNOW],
      ],
    );
  }, 180_000);

  it('Chinese', async () => {
    await dialogue(
      'blind-li',
      ['我叫王丽，是一名医生。', '我老公在上海工作。', '我不吃辣。', '我儿子今年十岁了。', '我养了一只猫，叫咪咪。'],
      [
        ['我是做什么的？', /医生/],
        ['我老公在哪儿工作？', /上海/],
        ['我儿子几岁了？', /十岁/],
        ['我的猫叫什么？', /咪咪/],
        ['今晚吃什么好？', /辣/, /咖喱/],
        ['我爸爸叫什么名字？', DONT_KNOW],
      ],
    );
  }, 180_000);
});
