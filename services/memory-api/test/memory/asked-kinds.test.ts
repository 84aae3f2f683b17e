import { describe, expect, it } from 'vitest';
import { askedKinds, statesAnyKind } from '../../src/memory/asked-kinds.ts';

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
    expect(askedKinds(question)).toEqual(['occupation']);
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
    expect(askedKinds(question)).toEqual([]);
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
    expect(statesAnyKind(fact, ['occupation'])).toBe(true);
  });

  it.each([
    'She loves hiking in the Alps.',
    'I am a big fan of jazz.',
    'Hannah is allergic to cats.',
    'We ordered pizza for dinner last night.',
    '她养了一只叫“煤球”的黑猫。',
    '我对芒果过敏，一吃嘴巴就肿。',
  ])('does not state: %s', (fact) => {
    expect(statesAnyKind(fact, ['occupation', 'volunteering'])).toBe(false);
  });
});

describe('unpaid work: asked and stated in words of their own', () => {
  it.each([
    'Does he do any charity work?',
    'Does she do any unpaid work?',
    'do I do any community stuff?',
    '她做过公益吗？',
    '他退了以后还做什么义务的事？',
  ])('asks: %s', (question) => {
    expect(askedKinds(question)).toEqual(['volunteering']);
  });

  it.each([
    'Lucia volunteers at a food bank on Saturday mornings.',
    'one saturday a month i do free cover-ups for ppl w self harm scars',
    'i help run a free coding club for disabled teens at the library on saturdays',
    'I coach an under-9s rugby team on Wednesday evenings.',
    '她在社区当志愿者，疫情那几年负责给独居老人送菜。',
    '他每周六上午在社区活动室给初中生免费补习物理。',
  ])('states: %s', (fact) => {
    expect(statesAnyKind(fact, ['volunteering'])).toBe(true);
  });

  it.each(['I have some free time on Sundays.', 'She works as a nurse in Leeds.', '我在上海送外卖。'])(
    'does not state: %s',
    (fact) => {
      expect(statesAnyKind(fact, ['volunteering'])).toBe(false);
    },
  );
});

describe('birthdays and ages: asked and stated in words of their own', () => {
  it.each([
    'When does she turn a year older?',
    'When should you wish me many happy returns?',
    'how old am i?',
    'When do I turn twenty?',
    '她哪天过寿？',
    '我几岁了？',
  ])('asks: %s', (question) => {
    expect(askedKinds(question)).toEqual(['birthday']);
  });

  it.each(['What does she want for her birthday?', 'Where is the birthday party?'])('does not ask: %s', (question) => {
    expect(askedKinds(question)).toEqual([]);
  });

  it.each([
    "Aroha's birthday is on 2 August.",
    'im 26, bday is june 9th',
    'He was born in 1962 in Cork.',
    '黄秀英的生日是农历八月十五，正好是中秋节。',
    '我是95年的，属猪。',
  ])('states: %s', (fact) => {
    expect(statesAnyKind(fact, ['birthday'])).toBe(true);
  });

  it.each(['The train was delayed by 20 minutes.', 'She runs 10 km on Sundays.', '我每天早上喝一杯豆浆。'])(
    'does not state: %s',
    (fact) => {
      expect(statesAnyKind(fact, ['birthday'])).toBe(false);
    },
  );
});
