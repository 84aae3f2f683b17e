import type { MemoryType } from '@hindsight/memory-model';

/**
 * What a message is, in English and Chinese: a question to answer from memory, a request
 * for a suggestion, a standing instruction to the assistant, a correction of something said
 * before, a statement to acknowledge, an explicit "remember …", or social talk.
 */
export type MessageKind =
  | { kind: 'remember'; fact: string; memoryType: MemoryType }
  | { kind: 'question' }
  | { kind: 'request'; food: boolean }
  | { kind: 'instruction' }
  | { kind: 'correction' }
  | { kind: 'statement' }
  | { kind: 'social'; social: 'greeting' | 'thanks' | 'farewell' | 'about-assistant' };

const REMEMBER_EN =
  /^\s*(?:please\s+|pls\s+)?(?:remember|keep in mind|don'?t forget|do not forget|note that|note:)(?:\s+that\b)?[\s,:]*(.+)$/is;
const REMEMBER_ZH = /^\s*(?:请|麻烦)?你?(?:帮我)?(?:记住|记一下|记下|别忘了|不要忘了)[：:，,\s]*(.+)$/s;
const PREFERENCE =
  /\b(prefer|prefers|like|likes|love|loves|enjoy|enjoys|hate|hates|dislike|dislikes|favou?rite)\b|喜欢|偏好|讨厌|爱吃|爱喝|最爱/i;

const RECOMMEND_EN = new RegExp(
  [
    String.raw`\b(recommend|recommendation|suggest|suggestion|suggestions)`,
    String.raw`\bideas?\s+(for|of|on)\b`,
    String.raw`\bany ideas?\b.*\b(could|should|can|might|to)\b`,
    String.raw`\bwhat (should|could|can|shall|might) (i|we)\s+(eat|bring|cook|make|get|order|have|try|buy|drink|serve|take|pack|snack|watch|read|do|wear|give)\b`,
    String.raw`\bwhat'?s (good|nice|safe) (to|for)\b`,
    String.raw`\bhelp me (choose|pick|decide|find)\b`,
    String.raw`\b(give|need|want) (me )?(an? )?(idea|ideas|tip|tips)\b`,
  ].join('|'),
  'i',
);
const RECOMMEND_ZH =
  /推荐|建议|出个主意|出主意|拿主意|(?:吃|喝|带|买|做|点|送|准备)(?:点)?(?:什么|啥)好|(?:该|能|可以)(?:吃|喝|带|买|做|点|送|准备)(?:点)?(?:什么|啥)|有什么.{0,8}(?:可以|好)(?:吃|喝|带|买|做|送)/;
const FOOD =
  /\b(snacks?|food|foods|eat|eating|meal|meals|dinner|lunch|breakfast|brunch|dessert|desserts|treat|treats|recipe|recipes|cook|cooking|restaurant|bite|dish|dishes|drink|drinks|potluck|picnic|bake|baking|cake|menu)\b|零食|小吃|吃|餐|菜|甜点|点心|喝|饮料|饭/i;

/** A question word opening a question ("Where do I live", "How old is …"), not a clause ("When I was young …"). */
const QUESTION_WORD_EN =
  /^\s*(?:(?:so|and|but|hey|ok|okay|well|um|hmm)[,\s]+)*(?:(?:what|where|when|who|whom|whose|which|why|how)'s\b|(?:what|where|when|who|whom|whose|which|why|how)\s+(?:is|are|was|were|am|do|does|did|can|could|should|would|will|have|has|had|my|kind|sort|type|time|day|year|date|city|country|town|job|food|old|many|much|long|often|far|else|was)\b|whats\b)/i;
const AUXILIARY_FIRST =
  /^\s*(?:(?:so|and|but|hey|ok|okay|well)[,\s]+)*(do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should|shall|may|might|must|isn't|aren't|don't|doesn't|didn't|haven't|hasn't)\s+(i|you|we|my|there|it|this|that|anyone|anything|he|she|they|the)\b/i;
const QUESTION_CUE_EN =
  /\b(any idea|remind me|tell me|do you (know|remember|recall)|you (still )?remember|i (wonder|forgot|forget|can'?t remember|don'?t remember)|i'?d like to know|i want to know|what about|how about my)\b/i;
/** Chinese interrogatives; "什么都吃" (anything) and "谁都知道" (everyone) are not questions. */
const QUESTION_ZH =
  /[？?]\s*$|[吗嘛呢]\s*[。.!！]?\s*$|(?:什么|啥|哪里|哪儿|哪个|哪些|哪天|哪年|哪家|哪位|谁|多少|多大|多久|怎么|为什么|为啥)(?![都也])|几(?:岁|个|号|月|点|年|位)|是不是|有没有|是否|记不记得|还记得|提醒我|告诉我/;

const INSTRUCTION_EN = new RegExp(
  [
    String.raw`^\s*(?:please\s+|pls\s+|kindly\s+)?(?:always\s+|never\s+|from now on,?\s+|don'?t\s+|do not\s+)?(?:keep|answer|reply|respond|speak|talk|write|call me|use|be (?:brief|short|concise|more|less)|stop|address me|give me (?:short|brief|long)|switch to)\b`,
    String.raw`\b(?:your|the) (?:answers|replies|responses)\b`,
    String.raw`\bfrom now on\b`,
    String.raw`^\s*(?:can|could|would|will) you (?:please )?(?:keep|always|answer|reply|respond|speak|talk|call me|use|be|stop|switch)\b`,
  ].join('|'),
  'i',
);
const INSTRUCTION_ZH =
  /^(?:(?:请(?!问)|麻烦)你?|(?:以后|今后|从现在起|从现在开始)[，,]?(?:请)?你?)(?:都|一直|总是)?(?:用|说|回答|回复|简短|简洁|别|不要|叫我|称呼我)|^叫我|回答.{0,4}(?:简短|简洁|短一点|详细)|(?:用|说)(?:中文|英文|英语|汉语|普通话)(?:回答|回复|跟我说|和我说|说话)/;

const CORRECTION_EN =
  /^\s*(?:actually|correction|sorry,? i meant|i meant|i misspoke|no,|nope,|oops|wait,)\b|,\s*not\s+[^,.!?]+[.!]?\s*$|\bnot\s+[^,.]+,?\s+but\s+|\brather than\b|\bi was wrong\b|\bi said .+ but\b/i;
const CORRECTION_ZH =
  /^(?:其实|更正|纠正|不对|说错了|我说错了|刚才说错了)|，?不是.{1,20}(?:而是|是)|(?:是|在).{1,20}，不是.{1,20}[。！!]?$|应该是/;

const GREETING =
  /^(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|greetings)(?![a-z])|你好|您好|嗨|早上好|晚上好|下午好)/i;
const THANKS =
  /^(?:(?:thanks|thank you|thx|cheers|ok|okay|great|cool|perfect|got it)(?![a-z])|好的|谢谢|多谢|感谢|好)/i;
const FAREWELL = /^(?:(?:bye|goodbye|see you|good night|that'?s all|that is all)(?![a-z])|再见|拜拜|晚安|就这些)/i;
/** What is left of a social message once its formula is taken out, if that is all it says. */
const SOCIAL_REST =
  /^[\s!.,，。！~]*(?:(?:so much|a lot|very much|again|for (?:now|today|that|the help|everything)|that'?s all|that is all|for today|there|you|everyone|all|bye|谢谢|你|了|啦|呀|哦|吧|啊|就这些|今天)[\s!.,，。！~]*)*$/i;

/** The greeting or filler before the point ("Hi! ", "Just so you know, ", "你好，"): kept out of acknowledgements. */
export const LEAD_IN =
  /^\s*(?:(?:(?:hi|hello|hey|hiya)(?: there)?|good (?:morning|afternoon|evening)|ok|okay|so|well|oh|by the way|btw|fyi|just so you know|just to let you know|for the record|you know what|you should know that|quick update|update)[\s!.,:;—-]+|(?:你好|您好|嗨|对了|顺便说一下|跟你说|告诉你)[\s!！.,，。:：]*)+/i;

/** The words that open a correction ("Actually, …", "其实…"). */
export const CORRECTION_LEAD =
  /^(?:actually|correction|sorry,? i meant|i meant|i misspoke|no|nope|oops|wait|其实|更正一下|更正|纠正一下|纠正|不对|我说错了|刚才说错了|说错了)[\s,，:：!！.。—-]*/i;

export function classifyMessage(message: string): MessageKind {
  const text = message.trim();
  const endsWithQuestionMark = /[?？]\s*$/.test(text);
  const remember = endsWithQuestionMark ? null : (REMEMBER_EN.exec(text) ?? REMEMBER_ZH.exec(text));
  const fact = remember?.[1]
    ?.trim()
    .replace(/[.!。！]+$/u, '')
    .trim();
  if (fact) return { kind: 'remember', fact, memoryType: PREFERENCE.test(fact) ? 'preference' : 'fact' };

  const social = socialKind(text);
  if (social) return { kind: 'social', social };
  const body = text.replace(LEAD_IN, '');
  if (RECOMMEND_EN.test(body) || RECOMMEND_ZH.test(body)) return { kind: 'request', food: FOOD.test(body) };
  if (INSTRUCTION_EN.test(body) || INSTRUCTION_ZH.test(body)) {
    // "Can you tell me …?" asks; "Can you keep your answers short?" instructs.
    if (!QUESTION_CUE_EN.test(body)) return { kind: 'instruction' };
  }
  if (isQuestion(body))
    return aboutTheAssistant(body) ? { kind: 'social', social: 'about-assistant' } : { kind: 'question' };
  if (CORRECTION_EN.test(body) || CORRECTION_ZH.test(body)) return { kind: 'correction' };
  return { kind: 'statement' };
}

/** "How are you?", "What's your name?", "你是谁？": a question about the assistant, not about the user. */
function aboutTheAssistant(text: string): boolean {
  const aboutYou = /\b(you|your|yours|yourself)\b|你|您/i.test(text);
  const aboutUser = /\b(i|i'm|i've|i'd|me|my|mine|myself|we|our|us)\b|我/i.test(text);
  // "Do you remember that thing?" asks about what the user said, pronoun or not.
  const aboutMemory = /\b(remember|recall|remind|told|said|mentioned|talked)\b|记得|说过|提到|聊过/i.test(text);
  return aboutYou && !aboutUser && !aboutMemory;
}

export function isQuestion(text: string): boolean {
  if (/[?？]\s*$/.test(text)) return true;
  if (QUESTION_WORD_EN.test(text) || AUXILIARY_FIRST.test(text) || QUESTION_CUE_EN.test(text)) return true;
  return /\p{Script=Han}/u.test(text) && QUESTION_ZH.test(text);
}

function socialKind(text: string): 'greeting' | 'thanks' | 'farewell' | undefined {
  for (const [kind, formula] of [
    ['greeting', GREETING],
    ['thanks', THANKS],
    ['farewell', FAREWELL],
  ] as const) {
    const match = formula.exec(text);
    if (match && SOCIAL_REST.test(text.slice(match[0].length).replace(GREETING, '').replace(THANKS, ''))) {
      return kind;
    }
  }
  return undefined;
}
