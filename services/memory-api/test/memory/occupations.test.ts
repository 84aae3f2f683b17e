import { describe, expect, it } from 'vitest';
import { asksForOccupation, statesOccupation } from '../../src/memory/occupations.ts';

describe('questions asking what someone does for a living', () => {
  it.each([
    'What do I do for a living?',
    'How does she earn her money?',
    "what's his trade?",
    'What is his profession?',
    'Where does he work?',
    'What does he do?',
    'What did she do before she retired?',
    'What does her husband do for work?',
    '他是做什么工作的？',
    '我现在靠什么谋生？',
    '她是做什么生意的？',
    '他以前靠什么吃饭？',
  ])('asks: %s', (question) => {
    expect(asksForOccupation(question)).toBe(true);
  });

  it.each([
    'What does she do at the weekend?',
    "What's her long-term career ambition?",
    'any aches and pains from the job?',
    'How does he get to work?',
    'Does she have any pets?',
    '我有什么职业规划？',
    '她家有宠物吗？',
  ])('does not ask: %s', (question) => {
    expect(asksForOccupation(question)).toBe(false);
  });
});

describe('facts saying what someone does, whatever the job is called', () => {
  it.each([
    "I'm an air traffic controller at Heathrow, mostly on night shifts.",
    'Hamish Dunmore is a ferry master for CalMac, skippering the Oban to Craignure crossing.',
    'Rafael writes code for a bank in Lisbon.',
    'I teach at Hillcrest Academy in Manchester.',
    'im a line cook at a ramen place on corydon ave',
    'Helena retired in 2019 after 31 years as a labour-court judge in Recife.',
    'She works as a veterinary pathologist at the provincial laboratory.',
    'I own a small bakery in Leicester called Crumb & Co.',
    '我在上海送外卖，一天跑十个小时左右。',
    '王建国是跑长途的货车司机，主要跑成都到拉萨这条线。',
    '黄秀英退休前在广州一所小学教了三十五年语文。',
  ])('states: %s', (fact) => {
    expect(statesOccupation(fact)).toBe(true);
  });

  it.each([
    'She loves hiking in the Alps.',
    'I am a big fan of jazz.',
    'Hannah is allergic to cats.',
    'We ordered pizza for dinner last night.',
    '她养了一只叫“煤球”的黑猫。',
    '我对芒果过敏，一吃嘴巴就肿。',
  ])('does not state: %s', (fact) => {
    expect(statesOccupation(fact)).toBe(false);
  });
});
