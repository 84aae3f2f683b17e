/**
 * What carries nothing durable: pleasantries (a whole utterance that only greets, thanks,
 * acknowledges or says goodbye) and transient state ("I'm in a meeting", "我在开会").
 * Shared by the extractors and the transcript writer, which skips pleasantries too.
 */

const PLEASANTRY_EN =
  /^(?:(?:hi|hello|hey|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|morning|thanks?(?: you)?(?: (?:so|very) much| a lot| again)?|thank you|thx|ty|cheers|ok(?:ay)?|k|got it|cool|nice|great|awesome|lovely|perfect|bye|goodbye|see you(?: later| soon)?|later|take care|lol|haha+|hehe+|wow|you'?re welcome|you are welcome|no problem|np|my pleasure|glad (?:i could|to) help|happy to help|anytime|how can i help(?: you)?(?: today)?|what can i do for you(?: today)?|how are you(?: doing)?(?: today)?|i'?m (?:good|fine|great)|not bad)(?:[\s,!.~]+(?:there|again|so much|a lot|then|everyone|all|friend|mate|buddy|too|then))*[\s,!.?~:)😊🙂👍]*)+$/iu;

const PLEASANTRY_ZH =
  /^(?:(?:你好|您好|嗨|哈喽|早上好|早安|下午好|晚上好|晚安|谢谢(?:你|您)?|多谢|感谢|好的|好|行|嗯+|哦+|哈哈+|嘿嘿|再见|拜拜|回头见|不客气|没问题|明白了?|收到|了解|太好了|有什么(?:可以)?(?:帮|帮助)(?:你|您)的吗|需要什么帮助)[\s，,！!。.~～啊呀哦了的吧呢]*)+$/u;

/** A whole utterance that only greets, thanks, acknowledges or says goodbye. */
export function isPleasantry(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0) return true;
  return PLEASANTRY_EN.test(trimmed) || PLEASANTRY_ZH.test(trimmed);
}

/** Sentences that are chit-chat even inside a longer turn. */
const CHIT_CHAT = [
  /\b(?:the weather|how are you|how's it going|what's up|nice to meet you|have a (?:good|nice|great) (?:day|one|weekend))\b/i,
  /天气(?:真|很|不错|好)|最近怎么样|吃饭了吗/u,
];

/** States that pass within the hour. */
const TRANSIENT = [
  /^i(?:'m| am) (?:in a meeting|busy|tired|hungry|sleepy|driving|on my way|running late|at work|bored|back|here|off|on the train|on the bus|at the airport|in a hurry|exhausted)\b/i,
  /\b(?:right now|at the moment|just now)\b.*\b(?:busy|meeting|tired|driving|hungry)\b/i,
  /^我(?:现在|正在)?(?:在开会|在路上|有点累|好累|很忙|在忙|饿了|困了)/u,
];

export function isChitChat(sentence: string): boolean {
  return isPleasantry(sentence) || CHIT_CHAT.some((p) => p.test(sentence)) || TRANSIENT.some((p) => p.test(sentence));
}
