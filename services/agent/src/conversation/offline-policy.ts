import type { MemoryType, SearchHit } from '@hindsight/memory-model';
import type { Language } from './language.ts';
import type { WriteOutcome } from './memory-calls.ts';

/**
 * The deterministic policy the agent follows without a model: store what the user
 * explicitly asks to remember, recommend with the user's constraints in mind, recall
 * on request, otherwise acknowledge. Same input and memories → same reply.
 */
export type Intent =
  | { kind: 'remember'; fact: string; memoryType: MemoryType }
  | { kind: 'recommend'; food: boolean }
  | { kind: 'recall' }
  | { kind: 'chat' };

export interface OfflineAnswer {
  reply: string;
  /** The memories the reply relied on. */
  used: SearchHit[];
}

const REMEMBER_EN =
  /^\s*(?:please\s+|pls\s+)?(?:remember|keep in mind|don'?t forget|do not forget|note that|note:)(?:\s+that\b)?[\s,:]*(.+)$/is;
const REMEMBER_ZH = /^\s*(?:请|麻烦)?你?(?:帮我)?(?:记住|记一下|记下|别忘了|不要忘了)[：:，,\s]*(.+)$/s;
const PREFERENCE =
  /\b(prefer|prefers|like|likes|love|loves|enjoy|enjoys|hate|hates|dislike|dislikes|favou?rite)\b|喜欢|偏好|讨厌|爱吃|爱喝|最爱/i;
const RECOMMEND_EN =
  /\b(recommend|suggest|suggestion|suggestions|ideas? for|what should i (eat|have|get|try|cook|order|make|do|watch|read|buy))\b/i;
const RECOMMEND_ZH = /推荐|建议|吃什么|喝什么|有什么好|出个主意/;
const FOOD =
  /\b(snacks?|food|eat|meal|dinner|lunch|breakfast|dessert|treat|recipe|cook|restaurant|bite)\b|零食|小吃|吃|餐|菜|甜点|点心/i;
const RECALL_EN =
  /\b(what do you (know|remember)|do you remember|what did i (say|tell)|what(?:'s| is| are) my|remind me)\b/i;
const RECALL_ZH = /你记得|还记得|你知道我|我说过|提醒我|我的.{0,12}是什么/;

export function classifyMessage(message: string): Intent {
  const remember = REMEMBER_EN.exec(message) ?? REMEMBER_ZH.exec(message);
  const fact = remember?.[1]
    ?.trim()
    .replace(/[.!。！]+$/u, '')
    .trim();
  if (fact) return { kind: 'remember', fact, memoryType: PREFERENCE.test(fact) ? 'preference' : 'fact' };
  if (RECOMMEND_EN.test(message) || RECOMMEND_ZH.test(message)) return { kind: 'recommend', food: FOOD.test(message) };
  if (RECALL_EN.test(message) || RECALL_ZH.test(message)) return { kind: 'recall' };
  return { kind: 'chat' };
}

interface Allergen {
  key: string;
  en: string;
  zh: string;
  pattern: RegExp;
}

const ALLERGENS: readonly Allergen[] = [
  { key: 'peanut', en: 'peanuts', zh: '花生', pattern: /peanut|花生/i },
  {
    key: 'tree_nut',
    en: 'tree nuts',
    zh: '坚果',
    pattern: /tree nuts?|almond|cashew|walnut|hazelnut|pecan|pistachio|坚果|杏仁|腰果|核桃|榛子/i,
  },
  { key: 'dairy', en: 'dairy', zh: '乳制品', pattern: /dairy|lactose|\bmilk\b|cheese|乳糖|牛奶|奶制品|乳制品|奶酪/i },
  { key: 'gluten', en: 'gluten', zh: '麸质', pattern: /gluten|wheat|coeliac|celiac|麸质|小麦/i },
  { key: 'egg', en: 'eggs', zh: '鸡蛋', pattern: /\beggs?\b|鸡蛋/i },
  { key: 'soy', en: 'soy', zh: '大豆', pattern: /\bsoy|soya|大豆|黄豆/i },
  { key: 'shellfish', en: 'shellfish', zh: '贝类海鲜', pattern: /shellfish|shrimp|prawn|crab|lobster|虾|蟹|贝类/i },
  { key: 'fish', en: 'fish', zh: '鱼', pattern: /\bfish\b|鱼/i },
  { key: 'sesame', en: 'sesame', zh: '芝麻', pattern: /sesame|芝麻/i },
];
const ALLERGY = /allerg|过敏/i;
const AVOIDS =
  /intoleran|can'?t (eat|have)|cannot (eat|have)|can not (eat|have)|don'?t eat|do not eat|avoid|不耐受|不能吃|不吃|忌口/i;
const VEGAN = /\bvegan\b|纯素/i;
const VEGETARIAN = /vegetarian|素食|吃素/i;
const LIKES = /\b(like|likes|love|loves|enjoy|enjoys|prefer|prefers|favou?rite)\b|喜欢|爱吃|最爱|偏好/i;
const DISLIKES = /\b(hate|hates|dislike|dislikes|don'?t like|doesn'?t like|not a fan)\b|讨厌|不喜欢|不爱吃/i;

interface Snack {
  en: string;
  zh: string;
  contains: readonly string[];
  words: RegExp;
}

/** A small, fixed menu: the point is the reasoning over memories, not the menu. Ordered by default pick. */
const SNACKS: readonly Snack[] = [
  {
    en: 'peanut butter crackers',
    zh: '花生酱夹心饼干',
    contains: ['peanut', 'gluten'],
    words: /cracker|peanut butter|饼干|花生酱/i,
  },
  {
    en: 'trail mix with peanuts and almonds',
    zh: '花生杏仁什锦果仁',
    contains: ['peanut', 'tree_nut'],
    words: /trail mix|nuts|果仁/i,
  },
  {
    en: 'apple slices with a bit of cheese',
    zh: '苹果片配一点奶酪',
    contains: ['dairy'],
    words: /apple|cheese|苹果|奶酪/i,
  },
  {
    en: 'hummus with carrot and cucumber sticks',
    zh: '鹰嘴豆泥配胡萝卜和黄瓜条',
    contains: ['sesame'],
    words: /hummus|carrot|cucumber|鹰嘴豆|胡萝卜|黄瓜/i,
  },
  {
    en: 'Greek yogurt with berries',
    zh: '希腊酸奶配浆果',
    contains: ['dairy'],
    words: /yog(h)?urt|berr|酸奶|浆果|莓/i,
  },
  { en: 'lightly salted popcorn', zh: '淡盐爆米花', contains: [], words: /popcorn|爆米花/i },
  { en: 'beef jerky', zh: '牛肉干', contains: ['meat', 'soy'], words: /jerky|牛肉干/i },
  { en: 'a banana', zh: '一根香蕉', contains: [], words: /banana|香蕉/i },
];

interface Constraint {
  memory: SearchHit;
  allergens: Allergen[];
  allergy: boolean;
}

/** Memories that rule food out: allergies, intolerances, things the user avoids, diets. */
function constraintsIn(memories: readonly SearchHit[]): {
  constraints: Constraint[];
  excluded: Set<string>;
  diet: SearchHit[];
} {
  const constraints: Constraint[] = [];
  const excluded = new Set<string>();
  const diet: SearchHit[] = [];
  for (const memory of memories) {
    const allergy = ALLERGY.test(memory.content);
    if (allergy || AVOIDS.test(memory.content)) {
      const allergens = ALLERGENS.filter((a) => a.pattern.test(memory.content));
      // A second memory saying the same (a session summary repeating the fact) adds nothing to the answer.
      if (allergens.length > 0 && !allergens.every((a) => excluded.has(a.key))) {
        constraints.push({ memory, allergens, allergy });
        for (const a of allergens) excluded.add(a.key);
      }
    }
    if (VEGAN.test(memory.content)) {
      for (const key of ['meat', 'dairy', 'egg']) excluded.add(key);
      diet.push(memory);
    } else if (VEGETARIAN.test(memory.content)) {
      excluded.add('meat');
      diet.push(memory);
    }
  }
  return { constraints, excluded, diet };
}

export function recommend(language: Language, food: boolean, memories: readonly SearchHit[]): OfflineAnswer {
  if (!food) return generalRecommendation(language, memories);
  const { constraints, excluded, diet } = constraintsIn(memories);
  const liked: SearchHit[] = [];
  const boosted = new Set<Snack>();
  const disliked = new Set<Snack>();
  for (const memory of memories) {
    for (const snack of SNACKS) {
      if (!snack.words.test(memory.content)) continue;
      if (DISLIKES.test(memory.content)) disliked.add(snack);
      else if (LIKES.test(memory.content)) boosted.add(snack);
      else continue;
      if (!liked.includes(memory)) liked.push(memory);
    }
  }
  const safe = SNACKS.filter((s) => !disliked.has(s) && !s.contains.some((c) => excluded.has(c)));
  const picks = [...safe.filter((s) => boosted.has(s)), ...safe.filter((s) => !boosted.has(s))].slice(0, 2);
  const names = picks.map((s) => s[language]);
  const used = [...constraints.map((c) => c.memory), ...diet, ...liked].filter((m, i, all) => all.indexOf(m) === i);

  if (language === 'zh') {
    const reasons = constraints.map((c) => {
      const list = c.allergens.map((a) => a.zh).join('、');
      return c.allergy ? `你对${list}过敏` : `你不吃${list}`;
    });
    reasons.push(...diet.map((d) => `你${VEGAN.test(d.content) ? '吃纯素' : '吃素'}`));
    const avoid = [...new Set(constraints.flatMap((c) => c.allergens.map((a) => a.zh)))];
    const lead =
      reasons.length > 0
        ? `考虑到${reasons.join('，')}，我会避开${avoid.length > 0 ? `含${avoid.join('、')}的` : '不合适的'}零食。`
        : '';
    return { reply: `${lead}可以试试${names.join('，或者')}。`, used };
  }
  const reasons = constraints.map((c) => {
    const list = joinEnglish(c.allergens.map((a) => a.en));
    return c.allergy ? `you're allergic to ${list}` : `you avoid ${list}`;
  });
  reasons.push(...diet.map((d) => (VEGAN.test(d.content) ? "you're vegan" : "you're vegetarian")));
  const avoid = joinEnglish(constraints.flatMap((c) => c.allergens.map((a) => a.en)));
  const lead =
    reasons.length > 0
      ? `Since ${joinEnglish(reasons)}, I'd steer clear of ${avoid ? `anything with ${avoid}` : 'anything that does not fit'}. `
      : '';
  return { reply: `${lead}How about ${names.join(', or ')}?`, used };
}

function generalRecommendation(language: Language, memories: readonly SearchHit[]): OfflineAnswer {
  const used = memories.slice(0, 3);
  if (used.length === 0) {
    return {
      reply:
        language === 'zh'
          ? '我还不了解你的喜好。告诉我你喜欢什么，我会记住，下次推荐得更准。'
          : "I don't know your tastes yet. Tell me what you like and I'll remember it for next time.",
      used,
    };
  }
  const lines = used.map((m) => m.content.trim()).join(language === 'zh' ? '；' : '; ');
  return {
    reply:
      language === 'zh'
        ? `根据我记得的情况（${lines}），告诉我你具体想要什么，我来帮你挑。`
        : `Keeping in mind what you've told me (${lines}), tell me a little more about what you're after and I'll narrow it down.`,
    used,
  };
}

export function recall(language: Language, memories: readonly SearchHit[]): OfflineAnswer {
  const used = memories.filter(isRelevant).slice(0, 5);
  if (used.length === 0) {
    return { reply: language === 'zh' ? '关于这个我还没有任何记录。' : "I don't have anything about that yet.", used };
  }
  const list = used.map((m) => `- ${m.content.trim()}`).join('\n');
  return { reply: language === 'zh' ? `我记得：\n${list}` : `Here's what I remember:\n${list}`, used };
}

export function acknowledge(language: Language, memories: readonly SearchHit[]): OfflineAnswer {
  const used = memories.filter(isRelevant).slice(0, 2);
  const related = used.map((m) => m.content.trim()).join(language === 'zh' ? '；' : '; ');
  if (language === 'zh') return { reply: `好的，我记下了。${related ? `我还记得：${related}。` : ''}`, used };
  return { reply: `Got it, thanks for telling me.${related ? ` I also remember: ${related}.` : ''}`, used };
}

export function rememberReply(language: Language, fact: string, outcome: WriteOutcome): string {
  if (!outcome.ok) {
    return language === 'zh'
      ? `这条我没法存下来：${outcome.message}`
      : `I couldn't store that as a memory: ${outcome.message}`;
  }
  if (outcome.result.status === 'duplicate') {
    return language === 'zh' ? `这个我已经记得了：${fact}。` : `I already knew that: ${fact}.`;
  }
  return language === 'zh' ? `好的，我记住了：${fact}。` : `Got it, I'll remember: ${fact}.`;
}

/** A memory that shares words with the message or is close in meaning; weak neighbours stay out of replies. */
function isRelevant(hit: SearchHit): boolean {
  return hit.scores.keyword > 0 || hit.scores.similarity >= 0.35;
}

function joinEnglish(items: readonly string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique[0] ?? '';
  return `${unique.slice(0, -1).join(', ')} and ${unique[unique.length - 1]}`;
}
