import { isChitChat, isPleasantry } from '../small-talk.ts';
import { type Finding, slug } from './finding.ts';
import { sentencesOf } from './sentences.ts';

/**
 * A short reply to the assistant's question, read together with the question ("How many guests?" —
 * "Around 120."), unless either side is small talk, an offer, a mood or a non-answer.
 */

/** A note that only says the user mentioned something (the readers' fallback, key `said.…`). */
export function isMention(finding: Finding): boolean {
  return finding.key.startsWith('said.');
}

/**
 * The question an assistant turn asks, if it asks one: the last question, even when the turn goes
 * on explaining after it ("Are you looking to stay in analytics? Each has …") — the user's reply answers it.
 */
export function lastQuestion(text: string): string | undefined {
  const question = sentencesOf(text).findLast((s) => /[?？]$/u.test(s));
  return question !== undefined && question.length <= 160 ? question : undefined;
}

/** Replies that answer nothing durable ("yes please", "not now", "maybe later", "先不用"). */
const NON_ANSWER =
  /^(?:yes|yeah|yep|no|nope|sure|ok(?:ay)?|maybe|not (?:now|yet|really)|later|maybe later|please|go ahead|sounds good|perfect|great|nah|先不用|不用|好的?|可以|行|嗯|是的|对)(?=[\s\p{P}]|$)[\s\p{P}]*(?:please|thanks|thank you|later|for now|next week|谢谢)?[\s\p{P}]*$/iu;

/** Offers of help and how-are-you questions: their replies are requests, moods or "not now". */
const OFFER_OR_MOOD =
  /^(?:want|shall i|should i|do you want|would you like|can i|need me|how can i help|what can i do|how are you|how is|how's|how are things|需要我|要不要|我可以|需要帮|需要什么|有什么可以)|help|帮你|帮忙/iu;

/** Replies that ask for work or report a mood. */
const REQUEST_OR_MOOD =
  /^(?:i|we)\s+(?:need|want|would like)\s+(?:a|an|some|help)\b|^(?:please\s+)?(?:write|give|make|draft|send|show)\s+me\b|^帮我|^请帮|\b(?:haha|lol|bored|hard|tired|fine|good|slowly)\b|累|还行/iu;

/**
 * A short reply to the assistant's question carries its meaning only with the question: "How many
 * guests?" — "Around 120." The note keeps both, in the third person.
 */
export function answerToQuestion(question: string, reply: string): Finding | undefined {
  const text = reply.trim();
  if (text.length > 80 || text.length < 2 || NON_ANSWER.test(text) || /[?？]\s*$/u.test(text)) return undefined;
  // "How can I help you today?" — "The weather is lovely": neither side says anything durable.
  if (isChitChat(text) || isPleasantry(question) || OFFER_OR_MOOD.test(question) || REQUEST_OR_MOOD.test(text))
    return undefined;
  const zh = /\p{Script=Han}/u.test(question + text);
  const value = zh
    ? `被问到“${question}”时，用户回答：${text}`
    : `Asked "${question}", the user answered: ${text.replace(/^(?:um+|uh+|hmm+)[,\s]*/i, '')}`;
  if (value.length > 200) return undefined;
  return {
    category: 'fact',
    key: `answer.${slug(question.replace(/[?？]$/u, ''))}`,
    answer: text,
    query: question,
    value: /[.。!！]$/u.test(value) ? value : `${value}${zh ? '。' : '.'}`,
    confidence: 0.6,
  };
}
