/**
 * Kinds of answer a question asks for that facts state in words of their own, read from how the
 * two are said rather than from the answer's name: "What do I do for a living?" is answered by
 * "I'm an air traffic controller at Heathrow", "Rafael writes code for a bank", "我在上海送外卖",
 * whose job titles the embedder's answer kinds do not know (it knows "nurse" and "fisherman", not
 * "ferry master" or "line cook"); "Does he do any charity work?" by "one saturday a month i do free
 * cover-ups", "她做过公益吗？" by "每个月去一次流浪动物救助站帮忙"; "When does she turn a year older?"
 * by "Aroha's birthday is on 2 August", 她哪天过寿？ by 她的生日是农历八月十五. A search lifts such a fact to a
 * modest relevance for such a question (search.ts, `RankingWeights.askedKindMatch`); which person
 * it is about is weighed as for any fact (relations.ts). General phrasing, EN and ZH, not tuned
 * to any dataset.
 */
export type AskedKind = 'occupation' | 'volunteering' | 'birthday';

interface KindPhrasing {
  asks: { en: RegExp; zh: RegExp };
  /** Kinds whose statements answer another question, however alike they read ("charity work" is not a job). */
  apartFrom: readonly AskedKind[];
  /** A question naming the kind but asking for something else ("career ambitions", 职业规划). */
  asksElse: { en: RegExp; zh: RegExp };
  states: { en: RegExp; zh: RegExp };
}

const anyOf = (patterns: readonly string[]) => new RegExp(patterns.join('|'), 'iu');

const KINDS: Readonly<Record<AskedKind, KindPhrasing>> = {
  occupation: {
    asks: {
      en: anyOf([
        String.raw`\bfor (?:a )?living\b`,
        String.raw`\bmake (?:a|her|his|my|their) living\b`,
        String.raw`\bearns? (?:a|her|his|my|their|your) (?:living|money|keep)\b`,
        String.raw`\bdo for work\b`,
        String.raw`\b(?:job|jobs|profession|occupation|career|vocation|trade|line of work|employer|employed|employment)\b`,
        String.raw`\bwhere (?:does|do|did) (?:he|she|i|they|you) work\b`,
        String.raw`\bwhat (?:does|do|did) (?:he|she|i|they|you) do(?: now| these days| again| exactly)?\s*\??$`,
        String.raw`\bwhat (?:does|do|did) (?:he|she|i|they|you) (?:use to )?do (?:before|until) (?:he|she|i|they|you) (?:retired|stopped)`,
      ]),
      zh: /做什么工作|干什么工作|什么工作|干什么的|做什么的|干啥的|做啥的|是做什么|干哪行|哪一行|什么职业|职业|谋生|靠(?:什么|啥)吃饭|做什么生意|干什么活|在哪(?:儿|里)?上班|什么营生/u,
    },
    apartFrom: [],
    asksElse: {
      en: /\b(?:ambitions?|plans?|planning|intentions?|goals?|considering|thinking|move|change|switch|future|become|aches?|pains?|injur\w*|hurt\w*|stress\w*)\b/iu,
      zh: /规划|打算|计划|想|将来|以后|梦想|目标|累|伤|疼|痛/u,
    },
    states: {
      en: anyOf([
        String.raw`\b(?:works?|worked|working)\s+(?:as|for|at|in)\b`,
        String.raw`\b(?:employed|hired)\s+(?:as|by|at)\b`,
        String.raw`\bjob\s+(?:as|at|with|in)\b`,
        String.raw`\b(?:i'?m|i am|he'?s|she'?s|he is|she is|they'?re|is|was)\s+(?:now\s+)?(?:a|an)\s+(?:[\p{L}-]+\s+){0,3}[\p{L}-]+\s+(?:at|for|with)\s+(?:a|an|the|[\p{Lu}\d])`,
        String.raw`\bretired\b[^.;]*\b(?:as|from|after)\b`,
        String.raw`\b(?:teach|teaches|taught|lectures?)\s+(?:at|in)\b`,
        String.raw`\bwrites? code\b`,
        String.raw`\b(?:self-employed|freelance|freelancer|owner-operator)\b`,
        String.raw`\b(?:runs?|owns?|opened)\s+(?:a|an|her|his|my|their)\s+(?:own\s+)?(?:[\p{L}-]+\s+){0,2}(?:shop|business|bakery|salon|restaurant|cafe|café|studio|practice|firm|company|farm|pub|clinic|store|garage|workshop)\b`,
      ]),
      zh: /在[^，。,；;]{1,14}(?:上班|工作|打工|任职|教书|当)|是(?:一名|一位|个)?[^，。,；;的]{0,8}(?:司机|老师|教师|护士|医生|工人|工程师|程序员|会计|律师|厨师|店主|老板|经理|员|师|工|匠)(?:[，。,；;]|$)|退休前|开了(?:一|两|几)?家|做生意|送外卖|跑长途|当了[^，。,；;]{0,4}年|教了[^，。,；;]{0,4}年|干了[^，。,；;]{0,4}年/u,
    },
  },
  volunteering: {
    asks: {
      en: /\b(?:charity|charitable|volunteer\w*|unpaid|community (?:work|service|stuff)|give back|good causes?|pro bono|for free|without pay)\b/iu,
      zh: /公益|义工|志愿|义务|慈善|做好事/u,
    },
    apartFrom: ['occupation'],
    asksElse: { en: /(?!)/u, zh: /(?!)/u },
    states: {
      en: anyOf([
        String.raw`\bvolunteer\w*\b`,
        String.raw`\b(?:charity|charities|fundrais\w*|food bank|soup kitchen|pro bono|unpaid)\b`,
        String.raw`\bfor free\b`,
        String.raw`\b(?:do|does|did|give|gives|offer|offers|run|runs|teach|teaches)\s+(?:a\s+)?free\b`,
        String.raw`\b(?:help|helps|helped)\s+(?:to\s+)?run\s+(?:a|the)\s+free\b`,
        String.raw`\bcoach(?:es|ed)?\s+(?:an?\s+|the\s+)?(?:under-?\d+s?|kids|children|youth|junior)\b`,
      ]),
      zh: /志愿者|义工|公益|义务|免费(?:给|帮|补习|教|辅导|做)|救助站|捐(?:款|钱|物|血)/u,
    },
  },
  birthday: {
    asks: {
      en: anyOf([
        String.raw`\b(?:birthday|bday|b-day|birth ?date|date of birth|dob)\b`,
        String.raw`\bmany happy returns\b`,
        String.raw`\bturns? (?:a year older|\d{1,3}|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b`,
        String.raw`\bwhen (?:was|were) (?:he|she|i|they|you) born\b`,
        String.raw`\bhow old\b`,
      ]),
      zh: /生日|过寿|做寿|哪天出生|哪年出生|几岁|多大了|多大年纪|多大岁数|今年多大|多少岁|年纪|属什么/u,
    },
    apartFrom: [],
    asksElse: {
      // A party or a present is another question, and so is the age of a thing ("How old is our home?").
      en: /\b(?:party|parties|present|presents|gift|gifts|cake|wants?|celebrat\w*|house|home|flat|apartment|car|building|dog|cat|pet)\b/iu,
      zh: /派对|礼物|蛋糕|想要|庆祝|房子|车|狗|猫/u,
    },
    states: {
      en: anyOf([
        String.raw`\b(?:birthday|bday|b-day)\b`,
        String.raw`\bborn (?:on|in)\b`,
        String.raw`\bturn(?:s|ed)? \d{1,3}\b`,
        String.raw`\b(?:i'?m|im|i am|he'?s|she'?s|is) \d{1,3}\b(?! (?:minutes?|km|miles?|kg|percent|%))`,
        String.raw`\b\d{1,3} years? old\b`,
      ]),
      zh: /生日|生于|出生|\d{2,4}年的|[零一二三四五六七八九〇]{2}年的|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|\d{1,3}岁|[一二三四五六七八九十]{1,3}岁/u,
    },
  },
};

const HAN = /\p{Script=Han}/u;
const ALL_KINDS = Object.keys(KINDS) as AskedKind[];

/** The kinds a question asks for, among those facts state in words of their own. */
export function askedKinds(question: string): AskedKind[] {
  const language = HAN.test(question) ? 'zh' : 'en';
  return ALL_KINDS.filter((kind) => {
    const { asks, asksElse } = KINDS[kind];
    return asks[language].test(question) && !asksElse[language].test(question);
  });
}

/** Whether a fact states one of these kinds (what someone does for a living, unpaid work they do, a birthday or age). */
export function statesAnyKind(text: string, kinds: readonly AskedKind[]): boolean {
  const language = HAN.test(text) ? 'zh' : 'en';
  return kinds.some((kind) => KINDS[kind].states[language].test(text));
}

/** The kinds whose statements do not answer a question asking for these (a job, for unpaid work). */
export function kindsApartFrom(kinds: readonly AskedKind[]): AskedKind[] {
  return [...new Set(kinds.flatMap((kind) => KINDS[kind].apartFrom))].filter((kind) => !kinds.includes(kind));
}
