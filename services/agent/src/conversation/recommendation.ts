import type { SearchHit } from '@hindsight/memory-model';
import { ENGLISH_STOP_WORDS, stem } from '@hindsight/text';
import { distinct, tellable } from './answer-selection.ts';
import { type Language, languageOf } from './language.ts';
import { asClause, memoryForUser } from './second-person.ts';

/**
 * Offline suggestions that respect what the user said: allergies, intolerances, diets,
 * dislikes and likes, for any food or drink the user asks about. The menus are small and
 * fixed — the point is the reasoning over memories — and every constraint that changed the
 * pick is named back to the user with the memory it came from.
 */

/** Ingredient families a memory can rule out, as memories name them (English and Chinese). */
const FAMILIES: ReadonlyArray<readonly [family: string, said: RegExp]> = [
  ['peanut', /peanut|花生|\bnuts?\b|坚果/i],
  ['tree_nut', /tree nuts?|\bnuts?\b|almond|cashew|walnut|hazelnut|pecan|pistachio|坚果|杏仁|腰果|核桃|榛子/i],
  ['dairy', /dairy|lactose|\bmilk\b|cheese|yog(?:h)?urt|butter|cream|乳糖|牛奶|奶制品|乳制品|奶酪|酸奶|奶/i],
  ['gluten', /gluten|wheat|coeliac|celiac|麸质|小麦|面筋/i],
  ['egg', /\beggs?\b|鸡蛋|蛋/i],
  ['soy', /\bsoy|soya|tofu|大豆|黄豆|豆腐/i],
  ['shellfish', /shellfish|shrimp|prawn|crab|lobster|seafood|虾|蟹|贝类|海鲜/i],
  ['fish', /\bfish\b|salmon|tuna|seafood|鱼|海鲜/i],
  ['sesame', /sesame|tahini|芝麻/i],
  ['pork', /pork|bacon|\bham\b|猪肉|猪/i],
  ['beef', /beef|牛肉/i],
  ['chicken', /chicken|poultry|鸡肉/i],
  ['meat', /\bmeat\b|肉/i],
  ['alcohol', /alcohol|\bwine\b|\bbeer\b|酒/i],
  ['sugar', /\bsugar|sweets|diabet|糖/i],
  ['chocolate', /chocolate|巧克力/i],
  ['spicy', /spicy|chil[li]|辣/i],
  ['caffeine', /caffeine|coffee|咖啡因|咖啡/i],
];
const MEAT = ['meat', 'pork', 'beef', 'chicken'];

interface Diet {
  said: RegExp;
  excludes: readonly string[];
}
const DIETS: readonly Diet[] = [
  { said: /\bvegan\b|纯素/i, excludes: [...MEAT, 'fish', 'shellfish', 'dairy', 'egg'] },
  { said: /vegetarian|素食|吃素/i, excludes: [...MEAT, 'fish', 'shellfish'] },
  { said: /pescatarian|pescetarian/i, excludes: MEAT },
  { said: /\bhalal\b|清真/i, excludes: ['pork', 'alcohol'] },
  { said: /\bkosher\b/i, excludes: ['pork', 'shellfish'] },
  { said: /gluten[- ]free|无麸质/i, excludes: ['gluten'] },
  { said: /dairy[- ]free/i, excludes: ['dairy'] },
  { said: /sober|teetotal|doesn'?t drink|does not drink|don'?t drink|不喝酒|戒酒/i, excludes: ['alcohol'] },
];
const RULES_OUT =
  /allerg|intoleran|tolerate|can'?t (?:eat|have|stand)|cannot (?:eat|have|stand)|can not (?:eat|have|stand)|don'?t (?:eat|like)|doesn'?t (?:eat|like)|does not (?:eat|like)|do not (?:eat|like)|never eats?|avoids?|hates?|dislikes?|not a fan|过敏|不耐受|不能吃|不吃|不喝|忌口|讨厌|不喜欢|受不了|戒/i;
const LIKES =
  /\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|favou?rite|adore|adores)\b|喜欢|爱吃|爱喝|最爱|偏好/i;
/** What a rule-out is about, in the memory's words: "allergic to peanuts", "hates olives", "讨厌香菜". */
const RULED_OUT_EN =
  /(?:allergic to|allergy to|intolerant to|tolerate|eat|have|stand|like|avoids?|hates?|dislikes?|fan of)\s+([^.;,()]+)/gi;
const RULED_OUT_ZH =
  /(?:对|不吃|不能吃|不喝|讨厌|不喜欢|受不了|忌口|戒了?)(\p{Script=Han}{1,6}?)(?:过敏|不耐受|[，。,.；;]|$)/gu;
const LIKED_EN = /(?:likes?|loves?|enjoys?|prefers?|adores?|favou?rite \w+ (?:is|are))\s+([^.;,()]+)/gi;
const LIKED_ZH = /(?:喜欢|爱吃|爱喝|最爱)(?:吃|喝)?(\p{Script=Han}{1,6})/gu;

type Kind = 'snack' | 'meal' | 'dessert' | 'drink';
interface Dish {
  en: string;
  zh: string;
  kind: Kind;
  /** Ingredient families and plain ingredient words (a dislike of "olives" rules out what lists "olive"). */
  contains: readonly string[];
}

const dish = (kind: Kind, en: string, zh: string, contains: string): Dish => ({
  kind,
  en,
  zh,
  contains: contains.split(' '),
});
/** In default order: with nothing known, the first two of a kind are suggested. */
const MENU: readonly Dish[] = [
  dish('snack', 'peanut butter crackers', '花生酱夹心饼干', 'peanut gluten cracker'),
  dish('snack', 'trail mix with peanuts and almonds', '花生杏仁什锦果仁', 'peanut tree_nut raisin'),
  dish('snack', 'cheese and olive skewers', '奶酪橄榄串', 'dairy cheese olive'),
  dish('snack', 'mini ham and cheese sandwiches', '火腿奶酪小三明治', 'pork meat dairy gluten ham cheese bread'),
  dish('snack', 'shrimp cocktail cups', '鲜虾杯', 'shellfish shrimp'),
  dish(
    'snack',
    'hummus with carrot and cucumber sticks',
    '鹰嘴豆泥配胡萝卜和黄瓜条',
    'sesame chickpea carrot cucumber',
  ),
  dish(
    'snack',
    'fruit skewers with grapes, melon and strawberries',
    '水果串（葡萄、甜瓜、草莓）',
    'fruit grape melon strawberry',
  ),
  dish('snack', 'lightly salted popcorn', '淡盐爆米花', 'popcorn corn'),
  dish('snack', 'guacamole with corn tortilla chips', '牛油果酱配玉米片', 'avocado corn cilantro lime'),
  dish('snack', 'roasted chickpeas with paprika', '烤鹰嘴豆', 'chickpea paprika'),
  dish('snack', 'rice crackers with seaweed', '海苔米饼', 'rice seaweed soy'),
  dish('meal', 'spaghetti carbonara', '培根蛋奶意面', 'pork meat egg dairy gluten pasta bacon'),
  dish('meal', 'shrimp pad thai', '鲜虾泰式炒河粉', 'shellfish peanut egg soy shrimp noodle'),
  dish('meal', 'beef tacos', '牛肉塔可', 'beef meat corn cilantro dairy'),
  dish('meal', 'grilled salmon with roast vegetables', '烤三文鱼配烤蔬菜', 'fish salmon vegetable'),
  dish('meal', 'chicken stir-fry with rice', '鸡肉炒饭', 'chicken meat soy rice'),
  dish('meal', 'vegetable curry with rice', '蔬菜咖喱饭', 'vegetable curry rice spicy'),
  dish('meal', 'lentil soup with crusty bread', '扁豆汤配面包', 'lentil gluten bread'),
  dish('meal', 'mushroom risotto', '蘑菇烩饭', 'mushroom dairy rice'),
  dish('meal', 'tofu and vegetable stir-fry', '豆腐炒时蔬', 'soy tofu sesame vegetable'),
  dish('meal', 'baked potatoes with beans and salad', '烤土豆配豆子和沙拉', 'potato bean salad'),
  dish('dessert', 'peanut butter cookies', '花生酱曲奇', 'peanut gluten egg sugar cookie'),
  dish('dessert', 'chocolate brownies', '巧克力布朗尼', 'chocolate egg gluten dairy sugar'),
  dish('dessert', 'cheesecake', '芝士蛋糕', 'dairy egg gluten sugar cheese'),
  dish('dessert', 'fruit salad with mint', '薄荷水果沙拉', 'fruit mint'),
  dish('dessert', 'mango sorbet', '芒果雪葩', 'mango fruit sugar'),
  dish('dessert', 'baked apples with cinnamon', '肉桂烤苹果', 'apple cinnamon'),
  dish('drink', 'a latte', '一杯拿铁', 'caffeine coffee dairy milk'),
  dish('drink', 'a glass of red wine', '一杯红酒', 'alcohol wine'),
  dish('drink', 'green tea', '绿茶', 'tea caffeine'),
  dish('drink', 'fresh orange juice', '鲜榨橙汁', 'orange fruit juice'),
  dish('drink', 'sparkling water with lemon', '柠檬气泡水', 'lemon water'),
  dish('drink', 'ginger and honey tea', '姜蜜茶', 'ginger honey tea'),
];

const KINDS: ReadonlyArray<readonly [Kind, RegExp]> = [
  ['drink', /\b(drinks?|beverages?|sip)\b|喝|饮料|饮品/i],
  ['dessert', /\b(desserts?|sweets?|cakes?|bake|baking|pudding)\b|甜点|甜品|蛋糕/i],
  [
    'meal',
    /\b(dinner|lunch|breakfast|brunch|meals?|cook|cooking|recipes?|restaurant|dish|dishes|supper|tonight)\b|晚饭|午饭|早饭|早餐|晚餐|午餐|做饭|做菜|菜|饭|今晚|晚上|中午/i,
  ],
];

export function dishKind(message: string): Kind {
  return KINDS.find(([, said]) => said.test(message))?.[0] ?? 'snack';
}

/** Added to a request's search so the memories that constrain food are found whatever the request says. */
export const FOOD_CONSTRAINT_TERMS =
  'allergic allergy intolerant vegetarian vegan diet avoid hates dislikes likes loves 过敏 忌口 素食 讨厌 不吃 喜欢';

interface Constraint {
  memory: SearchHit;
  families: string[];
  words: string[];
  /** Told back in this order: allergies first (they matter most), then diets, then dislikes. */
  weight: number;
}
const ALLERGY = /allerg|intoleran|tolerate|过敏|不耐受/i;

function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+/g) ?? [])
    .filter((w) => w.length > 2 && !ENGLISH_STOP_WORDS.has(w) && w !== 'anything' && w !== 'food')
    .map((w) => stem(w));
}

function mentioned(pattern: RegExp, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const object = match[1] ?? '';
    if (/\p{Script=Han}/u.test(object)) found.push(object);
    else found.push(...wordsOf(object));
  }
  return found;
}

function familiesIn(text: string): string[] {
  return FAMILIES.filter(([, said]) => said.test(text)).map(([family]) => family);
}

/** The rule-outs (allergies, intolerances, diets, dislikes) and likes among the user's memories. */
function readMemories(memories: readonly SearchHit[]) {
  const constraints: Constraint[] = [];
  const liked: Constraint[] = [];
  for (const memory of memories) {
    const text = memory.content;
    const diets = DIETS.filter((d) => d.said.test(text));
    if (diets.length > 0) {
      constraints.push({ memory, families: diets.flatMap((d) => d.excludes), words: [], weight: 1 });
      continue;
    }
    if (RULES_OUT.test(text)) {
      // The advice the extractor appends ("never suggest anything that contains peanuts") says nothing new.
      const clause = text.split(/[;；]/)[0] ?? text;
      const words = [...mentioned(RULED_OUT_EN, clause), ...mentioned(RULED_OUT_ZH, clause)];
      const families = familiesIn(clause);
      if (families.includes('meat')) families.push(...MEAT);
      const weight = ALLERGY.test(clause) ? 0 : 2;
      if (families.length > 0 || words.length > 0) constraints.push({ memory, families, words, weight });
      continue;
    }
    if (LIKES.test(text)) {
      const words = [...mentioned(LIKED_EN, text), ...mentioned(LIKED_ZH, text)];
      if (words.length > 0) liked.push({ memory, families: familiesIn(text), words, weight: 3 });
    }
  }
  return { constraints: sameOnce(constraints).sort((a, b) => a.weight - b.weight), liked: sameOnce(liked) };
}

/** One memory per thing ruled out: a session summary repeating the fact adds nothing. */
function sameOnce(items: Constraint[]): Constraint[] {
  const seen = new Set<string>();
  return items.filter((c) => {
    const key = [...new Set([...c.families, ...c.words])].sort().join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function touches(item: Dish, c: Constraint): boolean {
  const words = item.contains.map((w) => stem(w));
  return (
    c.families.some((f) => item.contains.includes(f)) ||
    c.words.some((w) => words.includes(w) || item.en.includes(w) || item.zh.includes(w))
  );
}

export interface Recommendation {
  reply: string;
  used: SearchHit[];
}

export function recommendFood(language: Language, message: string, memories: readonly SearchHit[]): Recommendation {
  const kind = dishKind(message);
  // What the worker distilled reads better than the transcript turn it came from.
  const semanticFirst = [...memories].sort((a, b) => Number(b.layer === 'semantic') - Number(a.layer === 'semantic'));
  const known = distinct(tellable(semanticFirst, message));
  const { constraints, liked } = readMemories(known);
  const options = MENU.filter((d) => d.kind === kind && !constraints.some((c) => touches(d, c)));
  const favourite = options.filter((d) => liked.some((c) => touches(d, c)));
  const picks = [...favourite, ...options.filter((d) => !favourite.includes(d))].slice(0, 2);
  // Named back: what ruled something out of this kind of dish (a shellfish allergy says nothing about drinks), and the likes picked for.
  const ofKind = MENU.filter((d) => d.kind === kind);
  const reasons = [
    ...constraints.filter((c) => ofKind.some((d) => touches(d, c))),
    ...liked.filter((c) => picks.some((d) => touches(d, c))),
  ];
  const used = reasons.map((c) => c.memory);
  const clauses = used.map((m) => asClause(memoryForUser(m)));

  if (language === 'zh') {
    const names = picks.map((d) => d.zh);
    const told = clauses.join('，');
    const lead =
      clauses.length > 0 ? `你跟我说过${languageOf(told) === 'zh' ? '' : '：'}${told}，所以我照这个来挑。` : '';
    if (names.length === 0) return { reply: `${lead}我手头的建议都不合适，你想吃点什么，我再帮你看看。`, used };
    return { reply: `${lead}可以试试${names.join('，或者')}。`, used };
  }
  const names = picks.map((d) => d.en);
  const lead = clauses.length > 0 ? `Since you told me ${joinEnglish(clauses)}, ` : '';
  if (names.length === 0) {
    return { reply: `${lead ? `${lead}none` : 'None'} of the ideas I have fit — tell me what you have in mind.`, used };
  }
  const suggestion = `${lead ? 'how' : 'How'} about ${names.join(', or ')}?`;
  return { reply: `${lead}${suggestion}`, used };
}

export function joinEnglish(items: readonly string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique[0] ?? '';
  return `${unique.slice(0, -1).join(', ')} and ${unique[unique.length - 1]}`;
}
