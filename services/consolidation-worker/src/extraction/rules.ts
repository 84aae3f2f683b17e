import type { Turn } from '@hindsight/memory-model';
import { type ExtractedItem, type Extraction, type Extractor, VALUE_MAX_CHARS } from './port.ts';

/** What one rule makes of a sentence (provenance and confidence are added around it). */
interface Finding {
  category: ExtractedItem['category'];
  key: string;
  query: string;
  value: string;
}

interface Rule {
  pattern: RegExp;
  build(match: RegExpExecArray, sentence: string, previous: string | undefined): Finding | undefined;
}

/** A captured object ends at a clause boundary. */
const OBJECT = '([^,.;!?，。；！？]+?)';
const END = String.raw`(?=\s*(?:[,.;!?，。；！？]|\band\b|\bbut\b|\bso\b|\bbecause\b|$))`;
const ZH_OBJECT = '([^，。；！？,.;!?]{1,20}?)';
const ZH_END = '(?=[，。；！？,.;!?]|$)';

const en = (source: string) => new RegExp(source, 'i');

/** First person → third person, so a stored value reads as a fact about the user. */
function thirdPerson(text: string): string {
  return text
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\bme\b/gi, 'them')
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bI'm\b/g, 'they are')
    .replace(/\bI\b/g, 'they')
    .trim();
}

function slug(text: string): string {
  const ascii = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (ascii || [...text].slice(0, 8).join('')).slice(0, 40);
}

const clean = (text: string | undefined) =>
  (text ?? '')
    .replace(/\s+/g, ' ')
    .replace(/^(?:a|an|the)\s+/i, '')
    .trim();

/** "I like it": the object is a pronoun, so there is nothing to remember without the context. */
const PRONOUN_OBJECT = /^(?:it|that|this|them|those|these|you|him|her|one|so|too)\b/i;

function attitude(thing: string, value: string): Finding | undefined {
  if (PRONOUN_OBJECT.test(thing)) return undefined;
  return {
    category: 'preference',
    key: `preference.${slug(thing)}`,
    query: `How does the user feel about ${thing}?`,
    value,
  };
}

function allergy(thing: string): Finding {
  return {
    category: 'fact',
    key: `health.allergy.${slug(thing)}`,
    query: 'What is the user allergic to?',
    value: `The user is allergic to ${thing}; never recommend food or products that contain ${thing}.`,
  };
}

/** A key from the first words of a clause: "decision.book_the_flight_to". */
function clauseKey(prefix: string, clause: string): string {
  return `${prefix}.${slug(clause.split(' ').slice(0, 4).join(' '))}`;
}

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');

const ENGLISH_RULES: Rule[] = [
  {
    pattern: en(String.raw`\b(?:i'?m|i am)\s+(?:severely |very |deathly |highly )?allergic to\s+${OBJECT}${END}`),
    build: (m) => allergy(clean(m[1])),
  },
  {
    pattern: en(String.raw`\bi have (?:a|an)\s+([a-z ]{2,30}?) allergy\b`),
    build: (m) => allergy(clean(m[1])),
  },
  {
    pattern: en(
      String.raw`\bi(?:'m| am) (lactose intolerant|gluten intolerant|diabetic|celiac|vegan|vegetarian|pescatarian|pregnant)\b`,
    ),
    build: (m) => ({
      category: 'fact',
      key: `health.${slug(m[1] as string)}`,
      query: 'What health or diet constraints does the user have?',
      value: `The user is ${(m[1] as string).toLowerCase()}; take this into account for food and health suggestions.`,
    }),
  },
  {
    pattern: en(
      String.raw`\bi have (diabetes|asthma|celiac disease|high blood pressure|hypertension|migraines|a heart condition)\b`,
    ),
    build: (m) => ({
      category: 'fact',
      key: `health.${slug(m[1] as string)}`,
      query: 'What health conditions does the user have?',
      value: `The user has ${(m[1] as string).toLowerCase()}; take this into account for health-related suggestions.`,
    }),
  },
  {
    pattern: en(
      String.raw`\bi(?:'ve| have)?\s+(?:quit|stopped|given up|gave up)\s+(?:drinking |eating |using |smoking )?${OBJECT}${END}`,
    ),
    build: (m) => {
      const thing = clean(m[1]);
      return attitude(thing, `The user has quit ${thing}.`);
    },
  },
  {
    pattern: en(String.raw`\bi (?:no longer|don't \w+ any ?more) (?:like|drink|eat|use|enjoy)?\s*${OBJECT}${END}`),
    build: (m) => {
      const thing = clean(m[1]);
      return attitude(thing, `The user no longer likes ${thing}.`);
    },
  },
  {
    pattern: en(String.raw`\bi (?:really )?(?:don't|do not) (?:like|enjoy|want)\s+${OBJECT}${END}`),
    build: (m) => {
      const thing = clean(m[1]);
      return attitude(thing, `The user dislikes ${thing}; avoid suggesting it.`);
    },
  },
  {
    pattern: en(String.raw`\bi (?:really )?(?:hate|dislike|can't stand|cannot stand)\s+${OBJECT}${END}`),
    build: (m) => {
      const thing = clean(m[1]);
      return attitude(thing, `The user dislikes ${thing}; avoid suggesting it.`);
    },
  },
  {
    pattern: en(String.raw`\bmy favou?rite\s+([a-z ]{2,30}?)\s+is\s+${OBJECT}${END}`),
    build: (m) => ({
      category: 'preference',
      key: `preference.favorite_${slug(m[1] as string)}`,
      query: `What is the user's favorite ${clean(m[1])}?`,
      value: `The user's favorite ${clean(m[1])} is ${clean(m[2])}.`,
    }),
  },
  {
    pattern: en(
      String.raw`\b(?:please\s+)?(?:always\s+)?(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers?|responses?|replies|explanations?)\s+(short|brief|concise|detailed|simple|formal|casual|friendly)${OBJECT}?${END}`,
    ),
    build: (m, sentence) => ({
      category: 'preference',
      key: 'preference.answer_style',
      query: 'How does the user want answers to be written?',
      value: `The user wants answers kept ${(m[1] as string).toLowerCase()}${clean(m[2]) ? ` ${thirdPerson(clean(m[2]))}` : ''} (they said: "${sentence.slice(0, 80)}").`,
    }),
  },
  {
    pattern: en(
      String.raw`\bplease (?:always )?(?:answer|reply|respond|write|talk to me)\s+(in|with|using)\s+${OBJECT}${END}`,
    ),
    build: (m) => ({
      category: 'preference',
      key: 'preference.answer_style',
      query: 'How does the user want answers to be written?',
      value: `The user wants answers written ${(m[1] as string).toLowerCase()} ${thirdPerson(clean(m[2]))}.`,
    }),
  },
  {
    pattern: en(String.raw`\bi (?:really |strongly )?prefer\s+${OBJECT}${END}`),
    build: (m) => {
      const thing = clean(m[1]);
      return {
        category: 'preference',
        key: `preference.${slug(thing)}`,
        query: `What does the user prefer regarding ${thing}?`,
        value: `The user prefers ${thirdPerson(thing)}.`,
      };
    },
  },
  {
    pattern: en(String.raw`\bi (?:really |absolutely )?(love|like|enjoy|adore)\s+${OBJECT}${END}`),
    build: (m) => {
      const thing = clean(m[2]);
      const verb = (m[1] as string).toLowerCase();
      return attitude(thing, `The user ${verb}s ${thirdPerson(thing)}.`);
    },
  },
  {
    pattern: /\b(?:[Mm]y name is|[Cc]all me)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)/,
    build: (m) => ({
      category: 'fact',
      key: 'identity.name',
      query: "What is the user's name?",
      value: `The user's name is ${m[1]}.`,
    }),
  },
  {
    pattern: en(String.raw`\bmy time ?zone is\s+${OBJECT}${END}`),
    build: (m) => ({
      category: 'fact',
      key: 'identity.timezone',
      query: "What is the user's timezone?",
      value: `The user's timezone is ${clean(m[1])}.`,
    }),
  },
  {
    pattern: en(
      String.raw`\bi(?:'m| am) in (?:the\s+)?((?:UTC|GMT)\s?[+-]\s?\d{1,2}(?::\d\d)?|[A-Z]{2,5}) time ?zone\b`,
    ),
    build: (m) => ({
      category: 'fact',
      key: 'identity.timezone',
      query: "What is the user's timezone?",
      value: `The user's timezone is ${(m[1] as string).replace(/\s+/g, '')}.`,
    }),
  },
  {
    pattern: en(String.raw`\bi (?:live|moved) (?:in|to)\s+${OBJECT}${END}`),
    build: (m) => ({
      category: 'fact',
      key: 'identity.location',
      query: 'Where does the user live?',
      value: `The user lives in ${clean(m[1])}.`,
    }),
  },
  {
    pattern: en(String.raw`\b(?:i work as|my job is|i'm employed as)\s+(?:an?\s+)?${OBJECT}${END}`),
    build: (m) => ({
      category: 'fact',
      key: 'identity.job',
      query: 'What does the user do for a living?',
      value: `The user works as ${article(clean(m[1]))} ${thirdPerson(clean(m[1]))}.`,
    }),
  },
  {
    pattern: en(
      String.raw`\bi(?:'m| am) an?\s+([a-z -]{0,30}?(?:engineer|developer|programmer|teacher|nurse|doctor|designer|manager|student|lawyer|writer|scientist|accountant|chef|researcher|consultant))\b`,
    ),
    build: (m) => ({
      category: 'fact',
      key: 'identity.job',
      query: 'What does the user do for a living?',
      value: `The user works as ${article(clean(m[1]))} ${clean(m[1])}.`,
    }),
  },
  {
    pattern: en(String.raw`\b(?:i|we)(?:'ve| have)?\s+decided\s+(?:to\s+|on\s+|that\s+)?([^.;!?。！？]+)`),
    build: (m) => ({
      category: 'decision',
      key: clauseKey('decision', clean(m[1])),
      query: 'What did the user decide?',
      value: `The user decided: ${thirdPerson(clean(m[1]))}.`,
    }),
  },
  {
    pattern: en(String.raw`\b(?:let's|let us|we'll|i'll|we will|i will) go with\s+${OBJECT}${END}`),
    build: (m) => ({
      category: 'decision',
      key: `decision.${slug(clean(m[1]))}`,
      query: 'What did the user decide?',
      value: `The user decided to go with ${thirdPerson(clean(m[1]))}.`,
    }),
  },
  {
    pattern: en(
      String.raw`\b(?:please\s+)?(?:remind me|don't let me forget)\s+(?:to\s+|about\s+|that\s+)?([^.;!?。！？]+)`,
    ),
    build: (m) => {
      const what = thirdPerson(clean(m[1]));
      return {
        category: 'commitment',
        key: clauseKey('commitment', what),
        query: 'What did the user ask to be reminded about?',
        value: `The user asked to be reminded to ${what}.`,
      };
    },
  },
  {
    pattern: en(String.raw`\bi (?:promise|promised|commit|committed|have committed) to\s+([^.;!?。！？]+)`),
    build: (m) => {
      const what = thirdPerson(clean(m[1]));
      return {
        category: 'commitment',
        key: clauseKey('commitment', what),
        query: 'What has the user committed to doing?',
        value: `The user committed to ${what}.`,
      };
    },
  },
  {
    pattern: en(String.raw`\b(?:i need to|i have to|i've got to|i must|todo:?|to-do:?)\s+([^.;!?。！？]+)`),
    build: (m) => {
      const what = thirdPerson(clean(m[1]));
      // "I need to go now" is leaving, not a task.
      if (/^(go|leave|run|sleep|eat|think|check|say|ask)\b/i.test(what) && what.split(' ').length <= 3)
        return undefined;
      return {
        category: 'todo',
        key: clauseKey('todo', what),
        query: 'What does the user still need to do?',
        value: `The user needs to ${what}.`,
      };
    },
  },
  {
    pattern: en(String.raw`^(?:actually|correction|sorry,? i meant|i meant|no,? wait)[,:]?\s+([^?]+)`),
    build: (m, _sentence, previous) => {
      const correction = thirdPerson(clean(m[1]));
      if (correction.split(' ').length < 2) return undefined;
      const context = previous ? ` (correcting: "${previous.slice(0, 70)}")` : '';
      return {
        category: 'fact',
        key: clauseKey('correction', correction),
        query: 'What did the user correct?',
        value: `Correction from the user: ${correction}${context}.`,
      };
    },
  },
];

const zh = (source: string) => new RegExp(source, 'u');

function zhAnswerStyle(style: string, sentence: string): Finding {
  return {
    category: 'preference',
    key: 'preference.answer_style',
    query: '用户希望回答是什么风格？',
    value: `用户希望回答${style}（用户原话：“${sentence.slice(0, 40)}”）。`,
  };
}

const CHINESE_RULES: Rule[] = [
  {
    pattern: zh(`我(?:对|對)${ZH_OBJECT}过敏`),
    build: (m) => ({
      category: 'fact',
      key: `health.allergy.${slug(m[1] as string)}`,
      query: '用户对什么过敏？',
      value: `用户对${m[1]}过敏，推荐食物、饮品或药品时必须避开${m[1]}。`,
    }),
  },
  {
    pattern: zh('我有(糖尿病|高血压|哮喘|心脏病|乳糖不耐受|偏头痛)'),
    build: (m) => ({
      category: 'fact',
      key: `health.${slug(m[1] as string)}`,
      query: '用户有哪些健康状况？',
      value: `用户有${m[1]}，给出饮食或健康建议时需要考虑这一点。`,
    }),
  },
  {
    pattern: zh('我(?:是素食者|吃素|只吃素)'),
    build: () => ({
      category: 'fact',
      key: 'health.vegetarian',
      query: '用户有哪些饮食限制？',
      value: '用户吃素，推荐餐厅或菜谱时只推荐素食。',
    }),
  },
  {
    pattern: zh(`我(?:已经)?(?:戒了|戒掉了|不再(?:喝|吃|用)?)${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({
      category: 'preference',
      key: `preference.${slug(m[1] as string)}`,
      query: `用户对${m[1]}的态度是什么？`,
      value: `用户已经戒了${m[1]}，不要再向用户推荐${m[1]}。`,
    }),
  },
  {
    pattern: zh(`我(?:很|非常|特别|真的)?(?:不喜欢|讨厌|不爱|受不了)${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({
      category: 'preference',
      key: `preference.${slug(m[1] as string)}`,
      query: `用户对${m[1]}的态度是什么？`,
      value: `用户不喜欢${m[1]}，尽量不要推荐。`,
    }),
  },
  {
    pattern: zh(
      `(?:请|麻烦)?(?:你)?(?:的)?(?:回答|回复|答案)(?:尽量|要|请|都)?(?:保持)?(简短|简洁|简单|短一点|短一些|详细|正式)`,
    ),
    build: (m, sentence) => zhAnswerStyle(m[1] as string, sentence),
  },
  {
    pattern: zh('(?:请)?(简短|简洁|详细)(?:地|点|一点|一些)?(?:回答|回复)'),
    build: (m, sentence) => zhAnswerStyle(m[1] as string, sentence),
  },
  {
    pattern: zh(`我(?:最|很|非常|特别|真的)?(?:喜欢|爱|偏爱|爱喝|爱吃)${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({
      category: 'preference',
      key: `preference.${slug(m[1] as string)}`,
      query: `用户对${m[1]}的态度是什么？`,
      value: `用户喜欢${m[1]}。`,
    }),
  },
  {
    pattern: zh(`(?:我叫|我的名字是|我的名字叫)${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({
      category: 'fact',
      key: 'identity.name',
      query: '用户叫什么名字？',
      value: `用户的名字是${m[1]}。`,
    }),
  },
  {
    pattern: zh(`我的时区是${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({
      category: 'fact',
      key: 'identity.timezone',
      query: '用户在哪个时区？',
      value: `用户的时区是${m[1]}。`,
    }),
  },
  {
    pattern: zh(`我(?:住在|搬到了|搬到)${ZH_OBJECT}${ZH_END}`),
    build: (m) => ({ category: 'fact', key: 'identity.location', query: '用户住在哪里？', value: `用户住在${m[1]}。` }),
  },
  {
    pattern: zh(
      '我是(?:一名|一个|一位)?([^，。；！？,.;!?]{0,10}?(?:工程师|程序员|老师|医生|护士|设计师|经理|学生|律师|作家|会计|研究员))',
    ),
    build: (m) => ({
      category: 'fact',
      key: 'identity.job',
      query: '用户的职业是什么？',
      value: `用户的职业是${m[1]}。`,
    }),
  },
  {
    pattern: zh('我(?:们)?(?:已经)?决定(?:了)?([^。；！？.;!?]{2,60})'),
    build: (m) => ({
      category: 'decision',
      key: `decision.${slug(m[1] as string)}`,
      query: '用户做了什么决定？',
      value: `用户决定${m[1]}。`,
    }),
  },
  {
    pattern: zh('(?:请|记得)?提醒我([^。；！？.;!?]{2,60})'),
    build: (m) => ({
      category: 'commitment',
      key: `commitment.${slug(m[1] as string)}`,
      query: '用户要求提醒什么事？',
      value: `用户请求提醒：${m[1]}。`,
    }),
  },
  {
    pattern: zh('我(?:答应|保证|承诺)(?:了)?(?:会)?([^。；！？.;!?]{2,60})'),
    build: (m) => ({
      category: 'commitment',
      key: `commitment.${slug(m[1] as string)}`,
      query: '用户承诺了什么？',
      value: `用户承诺${m[1]}。`,
    }),
  },
  {
    pattern: zh('(?:我(?:需要|得|必须|要记得)|待办[:：])([^。；！？.;!?]{3,60})'),
    build: (m) => ({
      category: 'todo',
      key: `todo.${slug(m[1] as string)}`,
      query: '用户还有什么事情要做？',
      value: `用户需要${m[1]}。`,
    }),
  },
  {
    pattern: zh('^(?:其实|实际上|不对|更正|说错了)[，,：:]?\\s*([^?？]{2,80})'),
    build: (m, _sentence, previous) => ({
      category: 'fact',
      key: `correction.${slug(m[1] as string)}`,
      query: '用户更正了什么？',
      value: `用户更正：${m[1]}${previous ? `（更正之前的说法：“${previous.slice(0, 40)}”）` : ''}。`,
    }),
  },
];

/** Greetings, thanks, acknowledgements and fillers: nothing durable in them. */
const SMALL_TALK = [
  /^(?:hi|hello|hey|yo|good (?:morning|afternoon|evening|night)|thanks?(?: you)?(?: so much| a lot)?|thank you|ok(?:ay)?|sure|great|cool|nice|awesome|perfect|got it|sounds good|bye|goodbye|see you(?: later)?|lol|haha+|yes|no|yep|nope|yeah|alright|wow)\b[\s\w,!.'~]{0,24}$/i,
  /\b(?:weather|how are you|how's it going|what's up|nice to meet you)\b/i,
  /^(?:你好|您好|嗨|谢谢|多谢|好的|好|嗯+|哈哈+|再见|拜拜|早上好|晚上好|晚安|不客气|没问题|明白了|收到)[\s！!。.~～啊呀哦了的吧]*$/u,
  /天气|最近怎么样|吃饭了吗/u,
];

/** States that pass within the hour ("I'm in a meeting", "我在开会"). */
const TRANSIENT = [
  /^i(?:'m| am) (?:in a meeting|busy|tired|hungry|sleepy|driving|on my way|running late|at work|bored|back|here|off)\b/i,
  /\b(?:right now|at the moment|for now|this morning|tonight)\b/i,
  /我(?:现在|正在|刚才|刚刚)|在开会|有点累|好累|很忙|马上/u,
];

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function isChitChat(sentence: string): boolean {
  return SMALL_TALK.some((p) => p.test(sentence)) || TRANSIENT.some((p) => p.test(sentence));
}

/** A question asks; it states nothing about the user (a reminder request phrased as one still counts). */
function isQuestion(sentence: string): boolean {
  return /[?？]\s*$/u.test(sentence) && !/\bremind me\b|提醒我/iu.test(sentence);
}

/**
 * The offline extractor: English and Chinese patterns over the user's own turns
 * (never the assistant's, tools' or system's), sentence by sentence, skipping small
 * talk, transient state and questions. Deterministic: a retried job extracts the
 * same items, so its Idempotency-Keys repeat.
 */
export class RuleExtractor implements Extractor {
  readonly name = 'rules';

  async extract(turns: readonly Turn[]): Promise<Extraction> {
    const items: ExtractedItem[] = [];
    let previous: string | undefined;
    for (const turn of turns) {
      if (turn.role !== 'user') {
        previous = turn.content;
        continue;
      }
      for (const sentence of sentencesOf(turn.content)) {
        const finding = extractSentence(sentence, previous);
        if (finding) items.push({ ...finding, confidence: 0.8, turn_ids: [turn.id] });
        previous = sentence;
      }
    }
    return { items, llmCalls: 0, tokens: 0 };
  }
}

/** The first rule that matches a sentence, if the sentence is worth remembering at all. */
export function extractSentence(sentence: string, previous?: string): Finding | undefined {
  if (isQuestion(sentence) || isChitChat(sentence)) return undefined;
  const rules = /\p{Script=Han}/u.test(sentence) ? [...CHINESE_RULES, ...ENGLISH_RULES] : ENGLISH_RULES;
  for (const rule of rules) {
    const match = rule.pattern.exec(sentence);
    if (!match) continue;
    const finding = rule.build(match, sentence.replace(/\s+/g, ' '), previous);
    if (finding && finding.value.length <= VALUE_MAX_CHARS) return finding;
  }
  return undefined;
}
