import type { Turn } from '@hindsight/memory-model';
import { CJK_STOP_CHARS, ENGLISH_STOP_WORDS } from '@hindsight/text';

/**
 * Messages that point back at something instead of naming it ("that thing from last time",
 * "上次那个事"): searching memory with them finds nothing useful until they are made standalone.
 */
const VAGUE_EN =
  /\b(that|the|this) (thing|one|stuff|issue|problem|idea|topic|place|matter)\b|\blast time\b|\bwhat we (talked|spoke|discussed|said)\b|\b(you|we) (mentioned|discussed)\b|\bthe other day\b|\bas (i|we) said\b|\b(it|that) again\b/i;
const VAGUE_ZH = /上次|那个事|那件事|那个东西|之前说的|之前聊的|刚才说的|刚才那个|你知道的|老样子/;

export function isVague(message: string): boolean {
  if (VAGUE_EN.test(message) || VAGUE_ZH.test(message)) return true;
  return topicWords(message).length === 0;
}

/**
 * The offline rewrite (no model): the message plus the topics of the session's recent user
 * turns, newest first. memory-api stays free of model calls on its read path; the agent pays.
 */
export function withRecentTopics(message: string, recent: readonly Turn[], maxTopics = 12): string {
  const topics: string[] = [];
  const seen = new Set(topicWords(message));
  for (const turn of [...recent].reverse()) {
    if (turn.role !== 'user') continue;
    for (const word of topicWords(turn.content)) {
      if (seen.has(word)) continue;
      seen.add(word);
      topics.push(word);
      if (topics.length >= maxTopics) break;
    }
    if (topics.length >= maxTopics) break;
  }
  return topics.length > 0 ? `${message} (${topics.join(' ')})` : message;
}

const CJK_RUN = /[\p{Script=Han}]+/gu;

/** Content words of a text: English words that are not function words, and Chinese runs without function characters. */
export function topicWords(text: string): string[] {
  const words: string[] = [];
  for (const raw of text.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? []) {
    const word = raw.replace(/'.*$/, '');
    if (word.length > 2 && !ENGLISH_STOP_WORDS.has(word) && !VAGUE_WORDS.has(word)) words.push(word);
  }
  for (const run of text.match(CJK_RUN) ?? []) {
    for (const part of run.split(new RegExp(`[${[...CJK_STOP_CHARS].join('')}]+`))) {
      if (part.length >= 2 && !VAGUE_ZH.test(part)) words.push(part);
    }
  }
  return words;
}

/** Words that only point back; never a topic. */
const VAGUE_WORDS = new Set([
  'thing',
  'things',
  'stuff',
  'last',
  'time',
  'again',
  'earlier',
  'talked',
  'discussed',
  'mentioned',
  'said',
  'remember',
]);
