import { describe, expect, it } from 'vitest';
import { relationsNamed, relationWeight } from '../../src/memory/relations.ts';

const WEIGHTS = { about: 0.6, other: 0.35, owner: 0.2 };

describe('who a question or a fact is about (relations.ts)', () => {
  it.each([
    ["What's my father's occupation?", ['father']],
    ['What line of business is her male sibling in?', ['brother']],
    ['Which city is my female sibling in?', ['sister']],
    ['What does her eldest girl do for work?', ['daughter']],
    ['What trade is her boy training in?', ['son']],
    ['What is his little sis studying?', ['sister']],
    ['Where does his older sibling work abroad?', ['brother', 'sister']],
    ["What does her wife's dad do?", ['father']],
    ["What does her daughter's spouse do?", ['partner']],
    ['她女儿的丈夫做什么工作？', ['partner']],
    ["what's my old man doing these days?", ['father']],
    ['Is she married?', ['partner']],
    ['when am I popping the question to my gf?', ['partner']],
    ['Is he betrothed to anyone?', ['partner']],
    ['她结婚了吗？', ['partner']],
    ['她丈夫以前开什么车？', ['partner']],
    ['她闺女干哪一行？', ['daughter']],
    ['她表妹在哪儿？', ['cousin']],
    // A friend is asked about as a relative is; a mam is a mother, a 祖父 a grandparent.
    ['what does his closest pal do?', ['friend']],
    ['我死党在哪上班？', ['friend']],
    ['what does his mam do?', ['mother']],
    ['祖父现在还好吗？', ['grandparent']],
  ])('"%s" asks about %j', (question, relations) => {
    expect([...relationsNamed(question).all].sort()).toEqual([...relations].sort());
  });

  it.each([
    'He was a boy scout until he was twelve.',
    'She teaches a class of girls and boys.',
    'Where do I live?',
    '我住在哪里？',
    // A relative as company: the text is about the user.
    'Which country will she visit with her husband?',
    'Where are my wife and I heading this summer?',
    '我住在伊宁市，跟爸妈住一个院子。',
    '她和老公一起开了家店。',
  ])('"%s" names no relative it is about', (text) => {
    expect(relationsNamed(text).all.size).toBe(0);
  });

  it('tells the relative a fact is about from one it only names', () => {
    expect([...relationsNamed('Her sister Huia works as a nurse.').subject]).toEqual(['sister']);
    expect([...relationsNamed('He will go on pilgrimage with his mother.').subject]).toEqual([]);
    expect([...relationsNamed('她女儿韦婷是一名英语老师。').subject]).toEqual(['daughter']);
    expect([...relationsNamed('His best mate Vlad is a crane operator down at Dublin Port.').subject]).toEqual([
      'friend',
    ]);
    expect([...relationsNamed('His mam Ileana still lives in Cluj.').subject]).toEqual(['mother']);
    // A note that begins with the relative is about them.
    expect([...relationsNamed('Wife Saoirse: midwife at Aberdeen Maternity Hospital.').subject]).toEqual(['partner']);
    expect([...relationsNamed('Younger brother Euan is a sous chef in Leith.').subject]).toEqual(['brother']);
    expect([...relationsNamed('Saturation diver on North Sea platforms, 28 days on.').subject]).toEqual([]);
    expect([...relationsNamed('她孙儿十岁了。').subject]).toEqual(['grandchild']);
  });

  it('weighs a fact about the relative asked about up, one about another relative down, and one about a relative down when the question asks about the user', () => {
    const question = relationsNamed('What does my dad do for work?');
    expect(relationWeight(question, relationsNamed('My dad drives a bus.'), WEIGHTS)).toBeCloseTo(1.6);
    expect(relationWeight(question, relationsNamed('I owe my parents a lot.'), WEIGHTS)).toBeCloseTo(1.15);
    expect(relationWeight(question, relationsNamed('My mum is a dentist.'), WEIGHTS)).toBeCloseTo(0.65);
    expect(relationWeight(question, relationsNamed('I work nights at the harbour.'), WEIGHTS)).toBe(1);
    const aboutTheUser = relationsNamed('Where do I work?');
    expect(relationWeight(aboutTheUser, relationsNamed('My mum is a dentist.'), WEIGHTS)).toBeCloseTo(0.8);
    expect(relationWeight(aboutTheUser, relationsNamed('I work nights at the harbour.'), WEIGHTS)).toBe(1);
    expect(relationWeight(aboutTheUser, relationsNamed('I live with my parents.'), WEIGHTS)).toBe(1);
    expect(relationWeight(aboutTheUser, relationsNamed('I owe my parents a lot.'), WEIGHTS)).toBe(1);
  });
});
