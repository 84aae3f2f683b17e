/**
 * Who a question asks about, when it is someone of the user's family or a friend: "what does my dad do?",
 * "her partner's job?", "她丈夫开什么车？". A fact about that relative ("My dad drives a bus",
 * "她老公开出租") answers it; a fact about another one ("My mum is a dentist") does not, however
 * alike the two read to word vectors (mother and father, sister and wife sit close together in
 * GloVe). Search weighs facts by it (search.ts); the words are general knowledge, EN and ZH.
 */

/** Relations, each with the words that name it. A word of several ("parents", 爸妈) names each. */
const RELATIONS: Readonly<Record<string, { en: string; zh: string }>> = {
  partner: {
    // Being married, engaged or seeing someone is said of the partner too: "Is she married?".
    en: 'wife wives husband husbands spouse spouses partner partners boyfriend girlfriend fiance fiancee fiancé fiancée gf bf hubby missus wifey married marriage engaged betrothed dating widow widowed widower divorced',
    zh: '老婆 老公 妻子 丈夫 爱人 老伴 媳妇 太太 先生 男朋友 女朋友 男友 女友 对象 未婚夫 未婚妻 结婚 已婚 订婚 谈恋爱 离婚 丧偶',
  },
  father: { en: 'father dad dads daddy papa stepfather stepdad parents', zh: '爸爸 爸 父亲 老爸 爹 爸妈 父母 继父' },
  mother: {
    en: 'mother mum mom mam mammy mummy mommy mama stepmother stepmum stepmom parents',
    zh: '妈妈 妈 母亲 老妈 娘 爸妈 父母 继母',
  },
  brother: { en: 'brother brothers bro sibling siblings', zh: '' },
  sister: { en: 'sister sisters sis sibling siblings', zh: '' },
  olderBrother: { en: '', zh: '哥哥 哥 大哥 二哥 兄弟 兄弟姐妹' },
  youngerBrother: { en: '', zh: '弟弟 弟 小弟 兄弟 兄弟姐妹' },
  olderSister: { en: '', zh: '姐姐 姐 大姐 二姐 姐妹 兄弟姐妹' },
  youngerSister: { en: '', zh: '妹妹 妹 小妹 姐妹 兄弟姐妹' },
  son: { en: 'son sons stepson kids children child boy boys lad lads', zh: '儿子 孩子 小孩 儿女' },
  daughter: {
    en: 'daughter daughters stepdaughter kids children child girl girls lass',
    zh: '女儿 闺女 孩子 小孩 儿女',
  },
  grandchild: {
    en: 'grandchild grandchildren grandkids grandkid grandson grandsons granddaughter granddaughters',
    zh: '孙子 孙女 孙儿 外孙 外孙女 孙辈',
  },
  grandparent: {
    en: 'grandmother grandma granny gran nan nana nanna grandfather grandpa grandad granddad gramps grandparent grandparents',
    zh: '奶奶 爷爷 外婆 外公 姥姥 姥爷 祖父 祖母 外祖父 外祖母',
  },
  uncle: { en: 'uncle uncles', zh: '叔叔 舅舅 伯伯 姑父 姨父' },
  aunt: { en: 'aunt aunts auntie aunty', zh: '阿姨 姑姑 姨妈 舅妈 婶婶' },
  cousin: { en: 'cousin cousins', zh: '表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹' },
  nephew: { en: 'nephew nephews niece nieces', zh: '侄子 侄女 外甥 外甥女' },
  // Not family, but as often asked about as if: "what does his closest pal do?", 我死党在哪上班？
  friend: {
    en: 'friend friends mate mates pal pals buddy buddies bestie bff',
    zh: '朋友 好友 闺蜜 哥们儿 哥们 死党 发小',
  },
};

const ENGLISH = new Map<string, Set<string>>();
const CHINESE: Array<{ word: string; relations: Set<string> }> = [];
for (const [relation, { en, zh }] of Object.entries(RELATIONS)) {
  for (const word of en.split(' ').filter(Boolean)) {
    const set = ENGLISH.get(word) ?? new Set<string>();
    set.add(relation);
    ENGLISH.set(word, set);
  }
  for (const word of zh.split(' ').filter(Boolean)) {
    const entry = CHINESE.find((e) => e.word === word);
    if (entry) entry.relations.add(relation);
    else CHINESE.push({ word, relations: new Set([relation]) });
  }
}
// Longest first, so 表妹 is a cousin before 妹 makes her a sister.
CHINESE.sort((a, b) => b.word.length - a.word.length);
const CHINESE_RELATIONS = new Map(CHINESE.map(({ word, relations }) => [word, relations]));
/** One scan finds every relation word (a search reads every candidate's text with it). */
const CHINESE_WORDS = new RegExp(CHINESE.map(({ word }) => word).join('|'), 'gu');

/** The relations a text names: every one, and the one it is first about (its subject), if any. */
export interface RelationsNamed {
  all: ReadonlySet<string>;
  subject: ReadonlySet<string>;
}

const NONE: RelationsNamed = { all: new Set(), subject: new Set() };

/**
 * Words before a subject relation: owners and their adjectives ("my little", "her elder", "我的"),
 * or none in a note that begins with the relative ("Younger brother Euan is a sous chef").
 */
const SUBJECT_LEAD_EN =
  /^(?:(?:my|his|her|their|our|the user's|the)\s+|[\p{Lu}][\p{L}'’-]*['’]s\s+)?(?:(?:little|younger|older|elder|big|baby|eldest|oldest|youngest|late|twin|best|closest)\s+)*$/iu;
/** Words that name a relative only when someone's: "her boy", "my eldest girl" (not "a boy scout"). */
const POSSESSED_ONLY_EN = new Set(['boy', 'boys', 'lad', 'lads', 'girl', 'girls', 'lass']);
const POSSESSIVE_BEFORE_EN =
  /(?:^|\s)(?:my|his|her|their|our|[\p{L}-]+['’]s)\s+(?:(?:little|younger|older|elder|big|baby|eldest|oldest|youngest)\s+)*$/iu;
/** A relative said another way: "her male sibling" is her brother, "my old man" my dad. */
const SAID_OTHERWISE_EN: ReadonlyArray<[RegExp, string]> = [
  [/\bmale\s+sibling/gu, 'brother'],
  [/\bfemale\s+sibling/gu, 'sister'],
  [/\b(my|his|her|their|our)\s+old\s+man\b/gu, '$1 dad'],
  [/\b(my|his|her|their|our)\s+old\s+lady\b/gu, '$1 mum'],
];
/** A relative whose relative is meant: "her wife's | dad", "她女儿的 | 丈夫" (the dad is asked about, not the wife). */
const POSSESSOR_EN = /^['’]s\s+(?:(?:little|younger|older|elder|big|baby|eldest|oldest|youngest)\s+)*$/u;
const POSSESSOR_ZH = /^的?$/u;
/**
 * A relative said as company, not as whom a text is about: "visit Japan with her husband", "my
 * wife and I are heading to Crete", "跟爸妈住一个院子". The question is then about the user.
 */
const COMPANY_BEFORE_EN =
  /\bwith\s+(?:my|his|her|their|our)\s+(?:(?:little|younger|older|elder|big|baby|eldest|oldest|youngest)\s+)*$/iu;
const COMPANY_AFTER_EN = /^['’]?s?\s+and\s+(?:i|me|myself)\b/u;
const COMPANY_BEFORE_ZH = /(?:和|跟|同|与|陪)(?:我|她|他|我们)?的?(?:大|小|亲)?$/u;
const SUBJECT_LEAD_ZH = /^(?:[\p{Script=Han}]{0,3}?)(?:的|家)?(?:大|小|亲)?$/u;

export function relationsNamed(text: string): RelationsNamed {
  if (/\p{Script=Han}/u.test(text)) return chineseRelations(text);
  const lower = text.toLowerCase();
  const said = /sibling|old (?:man|lady)/u.test(lower)
    ? SAID_OTHERWISE_EN.reduce((t, [pattern, relative]) => t.replace(pattern, relative), lower)
    : lower;
  const matches = relationWordsIn(said);
  if (matches.length === 0) return NONE;
  const all = new Set<string>();
  const subject = new Set<string>();
  for (const [at, match] of matches.entries()) {
    const word = match[0].toLowerCase().replace(/['’]s$/u, '');
    const relations = ENGLISH.get(word) as ReadonlySet<string>;
    const before = said.slice(0, match.index);
    if (POSSESSED_ONLY_EN.has(word) && !POSSESSIVE_BEFORE_EN.test(before)) continue;
    if (COMPANY_BEFORE_EN.test(before) || COMPANY_AFTER_EN.test(said.slice(match.index + match[0].length))) continue;
    if (possessorOf(said, match, matches[at + 1], POSSESSOR_EN)) continue;
    for (const r of relations) all.add(r);
    if (SUBJECT_LEAD_EN.test(before.trimStart())) for (const r of relations) subject.add(r);
  }
  return all.size === 0 ? NONE : { all, subject };
}

/**
 * The relation words of a lower-cased text, with where each stands: its words (runs of letters,
 * apostrophes and hyphens) looked up, with or without their "'s". One pattern of every relation
 * word between look-arounds found the same at twice the cost on text that names none (~6.5 µs a
 * fact on the bench's machine; a search reads some 70 candidates).
 */
function relationWordsIn(lower: string): Array<Required<WordAt>> {
  const found: Array<Required<WordAt>> = [];
  let index = 0;
  // Words and the runs between them, in turn (the pattern's group keeps the runs).
  for (const piece of lower.split(BETWEEN_WORDS_EN)) {
    if (ENGLISH.has(piece) || (/['’]s$/u.test(piece) && ENGLISH.has(piece.slice(0, -2))))
      found.push({ 0: piece, index });
    index += piece.length;
  }
  return found;
}
const BETWEEN_WORDS_EN = /([^\p{L}'’-]+)/u;

/** A word found in a text and where it starts (a pattern's match is one). */
interface WordAt {
  readonly 0: string;
  readonly index?: number;
}

function chineseRelations(text: string): RelationsNamed {
  const all = new Set<string>();
  const subject = new Set<string>();
  const matches = [...text.matchAll(CHINESE_WORDS)];
  for (const [at, match] of matches.entries()) {
    const before = text.slice(0, match.index);
    if (COMPANY_BEFORE_ZH.test(before) || possessorOf(text, match, matches[at + 1], POSSESSOR_ZH)) continue;
    const relations = CHINESE_RELATIONS.get(match[0]) as ReadonlySet<string>;
    for (const r of relations) all.add(r);
    if (SUBJECT_LEAD_ZH.test(before)) for (const r of relations) subject.add(r);
  }
  return all.size === 0 ? NONE : { all, subject };
}

/** A question that asks for a person ("Who does she walk with?", 她跟谁住？): a relative is then the answer. */
export function asksForAPerson(question: string): boolean {
  return /^\s*(?:who|whom|whose|with\s+whom)\b/iu.test(question) || /谁/u.test(question);
}

/** Whether a relative word is followed, across only a possessive, by another one ("wife's dad"). */
function possessorOf(text: string, match: WordAt, next: WordAt | undefined, between: RegExp) {
  if (next === undefined) return false;
  const end = (match.index as number) + match[0].replace(/['’]s$/u, '').length;
  return between.test(text.slice(end, next.index));
}

/**
 * How much a fact's relevance counts for a question about a relative: more when the fact is about
 * that relative (its subject), a little more when it names them ("lives with her parents"), less when it is about another
 * relative only. 1 when the question names no relative.
 */
export function relationWeight(question: RelationsNamed, fact: RelationsNamed, weights: RelationWeights): number {
  // "What's her profession?": asked of the user, not of "Lucia's mum, Helena, is a retired teacher".
  if (question.all.size === 0) return fact.subject.size > 0 ? 1 - weights.owner : 1;
  const asked = question.subject.size > 0 ? question.subject : question.all;
  const meets = (named: ReadonlySet<string>) => [...named].some((r) => asked.has(r));
  if (meets(fact.subject)) return 1 + weights.about;
  if (meets(fact.all)) return 1 + weights.about / 4;
  if (fact.subject.size > 0) return 1 - weights.other;
  return 1;
}

export interface RelationWeights {
  /** Added for a fact about the relative asked about (a quarter of it for one that only names them). */
  about: number;
  /** Taken off for a fact about another relative only. */
  other: number;
  /** Taken off a fact about a relative when the question names none (it asks about the user). */
  owner: number;
}
