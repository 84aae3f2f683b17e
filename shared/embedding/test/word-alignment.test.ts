import { describe, expect, it } from 'vitest';
import { BuiltinEmbedder } from '../src/index.ts';

// The default built-in model's word alignment (builtin/word-alignment.ts), as a search reranks its best facts with it.
const embedder = new BuiltinEmbedder({ dimension: 512 });
const aligned = async (question: string, facts: string[]) => {
  const scores = await embedder.align(question, facts);
  if (!scores) throw new Error('the built-in model has no word alignment');
  return scores;
};

describe('word alignment of a question with its facts', () => {
  it('meets 她家有宠物吗 with her cat, not with a fact that says 家 or names a building', async () => {
    const [cat, home, building] = await aligned('她家有宠物吗？', [
      '她养了一只叫“煤球”的黑猫，已经十二岁了。',
      '她最爱吃锅包肉，每次去老厨家都要点一份。',
      '她和老伴住在道里区一栋苏联时期的红砖楼里，六楼没有电梯。',
    ]);
    expect(cat).toBeGreaterThan(home as number);
    expect(cat).toBeGreaterThan(building as number);
  });

  it('keeps 家 when it is all a question asks about: 她家在哪儿 meets the facts about her home', async () => {
    const [flat, food] = await aligned('她家在哪儿？', ['她家住在道里区的一栋老楼里。', '她最爱吃锅包肉。']);
    expect(flat).toBeGreaterThan(food as number);
  });

  it('meets an English question about pets with the dog, as before', async () => {
    const [dog, house] = await aligned('Does she have any pets at home?', [
      'She has a border collie called Rex.',
      'She lives in a terraced house in Leeds.',
    ]);
    expect(dog).toBeGreaterThan(house as number);
  });
});
