import type { SearchHit } from '@hindsight/memory-model';
import { CORRECTION_LEAD, LEAD_IN } from './message-kind.ts';

/**
 * Memories are written about the user ("The user is allergic to peanuts", "用户住在成都",
 * "The user said: I work as a nurse"); the agent talks to the user. These functions turn
 * a memory, or the user's own words, into a clause addressed to the user ("you're allergic
 * to peanuts", "你住在成都", "you work as a nurse").
 */

/** What a transcript memory prefixes to the words of a turn (the worker's episodic turns). */
const SAID = /^\s*the (user|assistant) said:\s*/i;

/** Trailing advice the extractor adds for the assistant ("; never suggest anything that contains peanuts"). */
const ADVICE_EN = /\s*[;—–]\s*(?:never|avoid|always|do not|don'?t|make sure|be careful|remember)\b.*$/is;
const ADVICE_ZH = /[，,；;]\s*(?:推荐|建议|提供|安排)?[^，,；;。]*(?:必须|务必|注意|不要|避免|避开)[^。]*。?$/s;

const MODALS = new Set(['can', 'could', 'will', 'would', 'should', 'may', 'might', 'must', 'shall']);
const ADVERBS = new Set([
  'also',
  'always',
  'never',
  'often',
  'usually',
  'sometimes',
  'still',
  'really',
  'rarely',
  'recently',
  'now',
  'no',
  'longer',
  'not',
  'only',
  'just',
  'mostly',
  'currently',
]);
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['is', 'are'],
  ['was', 'were'],
  ['has', 'have'],
  ['does', 'do'],
  ["isn't", "aren't"],
  ["wasn't", "weren't"],
  ["hasn't", "haven't"],
  ["doesn't", "don't"],
  ['goes', 'go'],
]);

/** A third-person present verb as the second person uses it: lives → live, studies → study, watches → watch. */
export function secondPersonVerb(verb: string): string {
  const lower = verb.toLowerCase();
  const irregular = IRREGULAR.get(lower);
  if (irregular) return irregular;
  if (MODALS.has(lower) || !lower.endsWith('s') || lower.endsWith('ss') || lower.endsWith('us')) return verb;
  if (/[^aeiou]ies$/.test(lower) && lower.length > 4) return `${verb.slice(0, -3)}y`;
  if (/(?:sh|ch|x|z|ss|o)es$/.test(lower)) return verb.slice(0, -2);
  return verb.slice(0, -1);
}

/** "The user's daughter is called Mia." → "your daughter is called Mia" (no final stop, first letter as it falls). */
function thirdToSecondEnglish(text: string): string {
  let out = text.replace(/\bthe user'?s\b/gi, 'your').replace(/\bthe assistant'?s\b/gi, 'my');
  // "The user [adverbs] verb" → "you [adverbs] verb'": the verb loses its third-person -s.
  out = out.replace(/\bthe user\b((?:\s+[a-z']+)+)/gi, (_match, rest: string) => {
    const words = rest.trim().split(/\s+/);
    const index = words.findIndex((w) => !ADVERBS.has(w.toLowerCase()));
    if (index >= 0) words[index] = secondPersonVerb(words[index] as string);
    return `you ${words.join(' ')}`;
  });
  out = out.replace(/\bthe user\b/gi, 'you').replace(/\bthe assistant\b/gi, 'me');
  // Once the subject is the user, "they/them/their" in the same memory are the user too.
  if (/^\s*(you|your)\b/i.test(out)) {
    out = out
      .replace(/\bthemselves\b/gi, 'yourself')
      .replace(/\bthem\b/gi, 'you')
      .replace(/\btheir\b/gi, 'your')
      .replace(/\bthey\b/gi, 'you');
  }
  return out.replace(/\byou are\b/gi, "you're");
}

/** Words that open a subjectless note about the user as "you're …" ("Allergic to peanuts"). */
const STATE_OPENERS =
  /^(?:allergic|vegetarian|vegan|pescatarian|afraid|married|single|divorced|engaged|pregnant|retired|intolerant|lactose|gluten|based|from|learning|working|living|studying|training|planning|saving|currently)\b/i;

/**
 * A note written without its subject ("Loves salted popcorn", "Booked the ryokan", "Allergic
 * to peanuts") is about the user: "you love salted popcorn", "you booked …", "you're allergic …".
 */
function withSubject(text: string): string {
  const first = /^[A-Z][a-z]+\b/.exec(text)?.[0];
  if (!first) return text;
  const rest = text.slice(first.length);
  if (STATE_OPENERS.test(first)) return `you're ${first.toLowerCase()}${rest}`;
  if (/^(?:The|This|That|These|Those|There|It|Its|He|She|They|We|His|Her|Their|Our|Is|Was)$/.test(first)) return text;
  // "Paris is lovely" names its subject; "Loves popcorn" does not.
  if (/^\s+(?:is|are|was|were|has|have)\b/.test(rest)) return text;
  if (/(?:[^s]s|ed)$/.test(first)) return `you ${secondPersonVerb(first.toLowerCase())}${rest}`;
  return text;
}

/** Words a speaker uses for themself and for the listener, swapped in one pass. */
const SWAP: ReadonlyMap<string, string> = new Map([
  ["i'm", "you're"],
  ['i', 'you'],
  ["i've", "you've"],
  ["i'd", "you'd"],
  ["i'll", "you'll"],
  ['am', 'are'],
  ['my', 'your'],
  ['mine', 'yours'],
  ['myself', 'yourself'],
  ['we', 'you'],
  ['our', 'your'],
  ['ours', 'yours'],
  ["you're", "I'm"],
  ["you've", "I've"],
  ["you'll", "I'll"],
  ['your', 'my'],
  ['yours', 'mine'],
  ['yourself', 'myself'],
]);
/** After these "you" is still a subject ("… and you said"); elsewhere it is an object ("tell you" → "tell me"). */
const CLAUSE_OPENERS = new Set(['and', 'but', 'or', 'so', 'because', 'if', 'when', 'that', 'while', 'since', 'then']);
const WORD = /[A-Za-z]+(?:'[A-Za-z]+)?/g;

/**
 * The user's own words as the assistant says them back: "I'm allergic to peanuts" →
 * "you're allergic to peanuts", "keep your answers short" → "keep my answers short".
 */
export function swapPersonEnglish(text: string): string {
  let previous = '';
  let sawI = false;
  return text
    .replace(WORD, (word, offset: number) => {
      const lower = word.toLowerCase();
      const before = previous;
      previous = lower;
      // "am" is only swapped right after "I" ("I am" → "you are").
      if (lower === 'am') return before === 'i' ? 'are' : word;
      if (lower === 'you') {
        const subject = before === '' || CLAUSE_OPENERS.has(before) || /[.!?,;:]\s*$/.test(text.slice(0, offset));
        return subject ? 'I' : 'me';
      }
      if (lower === 'me' || lower === 'us') return 'you';
      const swapped = SWAP.get(lower);
      if (!swapped) return word;
      if (lower === 'i') sawI = true;
      return swapped;
    })
    .replace(/\byou are\b/g, sawI ? "you're" : 'you are');
}

/** Chinese pronouns swapped in one pass: 我 ↔ 你 (我们 → 你们). */
export function swapPersonChinese(text: string): string {
  return text.replace(/我们|你们|我|你|您/g, (pronoun) =>
    pronoun === '我们' ? '你们' : pronoun === '你们' ? '我们' : pronoun === '我' ? '你' : '我',
  );
}

const HAN = /\p{Script=Han}/u;

/** Swaps the speaker's and the listener's words, in whichever language the text is. */
export function swapPerson(text: string): string {
  return HAN.test(text) ? swapPersonEnglish(swapPersonChinese(text)) : swapPersonEnglish(text);
}

/**
 * A memory addressed to the user, without its final stop: third person ("The user …",
 * "用户…") becomes second person, a quoted turn ("The user said: I …") has its pronouns
 * swapped, and advice the extractor appended for the assistant is left out.
 */
export function addressedToUser(content: string): string {
  let text = content.replace(/\s+/g, ' ').trim();
  const said = SAID.exec(text);
  if (said) {
    text = swapPerson(text.slice(said[0].length).replace(LEAD_IN, '').replace(CORRECTION_LEAD, ''));
  } else {
    text = text.replace(ADVICE_EN, '').replace(ADVICE_ZH, '');
    // A note of what the user said ("用户提到，其实用户在上海工作") is told as what they said.
    text = text.replace(/^用户(?:提到|说|表示|说过)[，,:：]\s*/, '').replace(CORRECTION_LEAD, '');
    text = text.replace(/用户的/g, '你的').replace(/用户/g, '你');
    text = withSubject(thirdToSecondEnglish(text));
  }
  return text.replace(/[\s.。!！;；—–-]+$/u, '').trim();
}

/** The first letter upper-cased (English); Chinese is left alone. */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A clause as it continues a sentence: its first letter lower-cased unless it is "I" or a name-like word. */
export function asClause(text: string): string {
  const first = /^[A-Za-z']+/.exec(text)?.[0] ?? '';
  if (first === 'I' || first.startsWith("I'")) return text;
  if (/^(You|Your|You're|My|The|A|An|It|It's|There|That|This)$/.test(first)) {
    return text.charAt(0).toLowerCase() + text.slice(1);
  }
  return text;
}

/** A memory addressed to the user; a turn of this session (working memory) is the user's own words. */
export function memoryForUser(memory: SearchHit): string {
  const ownWords = memory.layer === 'working' && memory.metadata.role === 'user';
  return addressedToUser(ownWords ? `The user said: ${memory.content}` : memory.content);
}
