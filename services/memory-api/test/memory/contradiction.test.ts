import { describe, expect, it } from 'vitest';
import { RuleContradictionJudge } from '../../src/memory/contradiction.ts';

const judge = new RuleContradictionJudge();

describe('rule-based contradiction judge', () => {
  it.each([
    ['The user likes coffee', 'The user has quit coffee'],
    ['The user likes coffee', "The user doesn't drink coffee anymore"],
    ['The user lives in Berlin', 'The user moved to Lisbon'],
    ['timezone is UTC+8', 'timezone is UTC+1'],
    ['The meeting is on Tuesday', 'The meeting is on Thursday'],
    ['用户喜欢喝咖啡', '用户已经戒了咖啡，不再喝咖啡'],
    ['用户喜欢猫', '用户不喜欢猫'],
  ])('"%s" is contradicted by "%s"', async (older, newer) => {
    expect(await judge.contradicts(older, newer)).toBe(true);
  });

  it.each([
    ['The user likes coffee', 'The user likes coffee with oat milk'],
    ['The user likes jazz', 'The user has a dog named Rex'],
    ['The user is allergic to peanuts', 'The user is allergic to peanuts and shellfish'],
    ['用户喜欢简洁的回答', '用户住在上海'],
  ])('"%s" is compatible with "%s"', async (older, newer) => {
    expect(await judge.contradicts(older, newer)).toBe(false);
  });
});
