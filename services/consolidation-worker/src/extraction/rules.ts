import type { Turn } from '@hindsight/memory-model';
import { isDegenerate } from './guard.ts';
import { chineseFindings } from './offline/chinese.ts';
import { englishFindings } from './offline/english.ts';
import { type Finding, newSessionContext, slug } from './offline/finding.ts';
import { ExtractedItem, type Extraction, type Extractor } from './port.ts';
import { isChitChat, isPleasantry } from './small-talk.ts';

/**
 * The part of a user turn the notes are taken from. What a person says about themselves fits in
 * it; a longer turn is a paste (code, a document, logs), which the transcript keeps whole and
 * which would otherwise cost seconds of parsing.
 */
export const NOTE_CHARS_PER_TURN = 2000;

/** A finding with the turn it came from. */
interface Noted extends Finding {
  turnId: string;
}

/**
 * The offline extractor: reads the user's own turns (never the assistant's, tools' or system's)
 * the way a person taking notes would, with compromise (English) and jieba (Chinese) — clauses,
 * parts of speech, names, dates resolved against the conversation time — and keeps what lasts:
 * the user's facts, people around them, preferences and standing instructions, constraints and
 * budgets, plans, decisions (a reversal replaces the decision it takes back), commitments and
 * organisation facts. Each item names its slot (`key`, subject + attribute) and the slot's
 * `answer`. Deterministic: a retried job extracts the same items, so its Idempotency-Keys repeat.
 */
export class RuleExtractor implements Extractor {
  readonly name = 'rules';

  async extract(turns: readonly Turn[]): Promise<Extraction> {
    const noted: Noted[] = [];
    const ctx = newSessionContext(turns[0]?.timestamp ?? new Date(0).toISOString());
    let asked: string | undefined;
    for (const turn of turns) {
      if (turn.role === 'assistant') asked = lastQuestion(turn.content);
      if (turn.role !== 'user' || isPleasantry(turn.content)) continue;
      ctx.now = turn.timestamp;
      const text = turn.content.slice(0, NOTE_CHARS_PER_TURN);
      const read = (part: string) =>
        byLanguage(part).flatMap((run) => (run.zh ? chineseFindings : englishFindings)(run.text, ctx));
      let findings = read(text);
      // "Around 120. My fiancée Sofia wants…": the reply's first sentence answers the question asked,
      // unless it says something that stands on its own (a bare "the user mentioned…" does not).
      const first = sentencesOf(text)[0] ?? '';
      const ofFirst = first === text ? findings : read(first);
      if (asked && first.length <= 80 && ofFirst.every(isMention)) {
        const answer = answerToQuestion(asked, first);
        if (answer) {
          const mentioned = new Set(ofFirst.map((f) => f.value));
          findings = [answer, ...findings.filter((f) => !mentioned.has(f.value))];
        }
      }
      asked = undefined;
      for (const finding of findings) note(noted, { ...finding, turnId: turn.id });
      dropContradictedDecisions(noted, turn);
    }
    // A finding the output checks would refuse (too short, too long, "very very very …") is not kept:
    // what the user typed must never fail the job.
    const items = noted
      .map(toItem)
      .filter(
        (item) => ExtractedItem.safeParse(item).success && !isDegenerate(item.value) && !isDegenerate(item.query),
      );
    return { items, llmCalls: 0, tokens: 0 };
  }
}

/**
 * Adds a finding to the session's notes. A reversal ("make that Lisbon instead", "算了…还是…")
 * takes over the slot of the decision it reverses, which is dropped: only the standing decision
 * is kept. A later finding on the same slot replaces an earlier one (the user updated it).
 */
function note(noted: Noted[], finding: Noted): void {
  if (finding.category === 'decision' && finding.reverses) {
    const index = findLastIndex(
      noted,
      (n) =>
        n.category === 'decision' &&
        (finding.replaces === undefined || n.answer.toLowerCase().includes(finding.replaces.toLowerCase())),
    );
    const reversed = index >= 0 ? noted[index] : undefined;
    if (reversed) {
      noted.splice(index, 1);
      finding.key = reversed.key;
      finding.replaces = reversed.answer;
      // The same slot answers the same question ("…about host on Anchor?"); the value names only the
      // standing choice, so no active note still asserts the one taken back.
      finding.query = reversed.query;
    }
  }
  if (finding.category !== 'decision' && finding.reverses) {
    // An update of an earlier note on the same subject in another turn ("… 10k emergency fund" → "target 6k instead").
    const words = contentWords(finding.value);
    const index = findLastIndex(
      noted,
      (n) => n.turnId !== finding.turnId && [...contentWords(n.value)].filter((w) => words.has(w)).length >= 2,
    );
    const updated = index >= 0 ? noted[index] : undefined;
    if (updated) {
      noted.splice(index, 1);
      finding.key = updated.key;
      finding.replaces = updated.answer;
    }
  }
  if (finding.category === 'decision' && finding.answer === 'no') dropTakenBackOption(noted, finding);
  const same = noted.findIndex((n) => n.key === finding.key);
  if (same >= 0) {
    const earlier = noted[same] as Noted;
    noted.splice(same, 1);
    if (earlier.value === finding.value) finding.confidence = Math.max(earlier.confidence, finding.confidence);
  }
  noted.push(finding);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Notes that weigh options: an answer to the assistant's question, or a note naming a choice. */
const WEIGHS_OPTIONS = /\b(?:choice|option|either|shortlist|first|second|or)\b|还是|或者|备选|首选/iu;

/**
 * "Top choice is Uppsala, second is Ghent" — "let's not consider Ghent after all": the option the
 * user rules out leaves the notes of the session that still offer it (the rest of the note stays;
 * a note with nothing else goes). Only named options (a capitalised name) are taken out.
 */
function dropTakenBackOption(noted: Noted[], declined: Noted): void {
  const names = (declined.value.replace(/^The user\b/, '').match(/\b\p{Lu}[\p{L}'-]+/gu) ?? []).map((n) =>
    n.toLowerCase(),
  );
  if (names.length === 0) return;
  for (let i = noted.length - 1; i >= 0; i--) {
    const note = noted[i] as Noted;
    if (note.category === 'decision' || !(note.key.startsWith('answer.') || WEIGHS_OPTIONS.test(note.value))) continue;
    const parts = note.value.split(/(?<=[,;])\s+|\s+(?=(?:and|or)\s)/u);
    const kept = parts.filter(
      (part) => !names.some((name) => new RegExp(`(?<!\\p{L})${escapeRegExp(name)}(?!\\p{L})`, 'iu').test(part)),
    );
    if (kept.length === parts.length) continue;
    const rest = kept.join(' ').replace(/[,;\s]+$/u, '');
    if (kept.length === 0 || /:\s*$|answered$/u.test(rest)) noted.splice(i, 1);
    else note.value = /[.!?。]$/u.test(rest) ? rest : `${rest}.`;
  }
}

/**
 * A decision the user later contradicts in passing ("Leo wants a T-rex cake, not a volcano",
 * "instead of Streamlit", "forget Pickfords") no longer stands: it is dropped from the notes.
 */
function dropContradictedDecisions(noted: Noted[], turn: Turn): void {
  for (let i = noted.length - 1; i >= 0; i--) {
    const decision = noted[i] as Noted;
    if (decision.category !== 'decision' || decision.answer === 'no') continue;
    const head = decision.answer
      .toLowerCase()
      .replace(/^(?:a|an|the|to)\s+/, '')
      .split(/\s+/)
      .find((w) => w.length > 2);
    if (!head || decision.turnId === turn.id) continue;
    const escaped = escapeRegExp(head);
    const contradicted = new RegExp(
      `\\b(?:not|no|instead of|rather than|forget|skip|scrap|drop)\\s+(?:a\\s+|an\\s+|the\\s+)?${escaped}`,
      'i',
    );
    if (contradicted.test(turn.content)) noted.splice(i, 1);
  }
}

const HAN = /\p{Script=Han}/u;

/**
 * A turn as runs of sentences in one language, each for its own reader: "我住在北京。Please always
 * answer me in English." holds a Chinese fact and an English instruction. A Chinese sentence with a
 * Latin name in it ("我用iPhone") stays Chinese; a turn in one language is one run.
 */
function byLanguage(text: string): Array<{ zh: boolean; text: string }> {
  if (!HAN.test(text) || !/[A-Za-z]{2,}[^.!?。！？]*\s[A-Za-z]{2,}/u.test(text)) return [{ zh: HAN.test(text), text }];
  const runs: Array<{ zh: boolean; text: string }> = [];
  for (const sentence of sentencesOf(text)) {
    const zh = HAN.test(sentence);
    const last = runs.at(-1);
    if (last && last.zh === zh) last.text = `${last.text}${zh ? '' : ' '}${sentence}`;
    else runs.push({ zh, text: sentence });
  }
  return runs;
}

/** A note that only says the user mentioned something (the readers' fallback, key `said.…`). */
function isMention(finding: Finding): boolean {
  return finding.key.startsWith('said.');
}

/** Titles and abbreviations a full stop does not end a sentence after ("Dr. Weiss", "e.g. rice"). */
const ABBREVIATION = /(?:^|[\s(])(?:dr|mr|mrs|ms|prof|st|mt|vs|approx|etc|e\.g|i\.e|no|fig)\.$/i;

/** The sentences of a turn, a title's full stop ("Dr. Weiss") not ending one. */
function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  for (const part of text.trim().split(/(?<=[.!?。！？])\s*/u)) {
    const previous = sentences.at(-1);
    if (previous !== undefined && ABBREVIATION.test(previous)) sentences[sentences.length - 1] = `${previous} ${part}`;
    else sentences.push(part);
  }
  return sentences.map((s) => s.trim()).filter(Boolean);
}

/**
 * The question an assistant turn asks, if it asks one: the last question, even when the turn goes
 * on explaining after it ("Are you looking to stay in analytics? Each has …") — the user's reply answers it.
 */
function lastQuestion(text: string): string | undefined {
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
function answerToQuestion(question: string, reply: string): Finding | undefined {
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

const FUNCTION_WORDS = new Set(
  'the user their they them that this with from have has been were will would could should about into than then make made change changed wants want said asked instead actually'.split(
    ' ',
  ),
);

/** Lower-cased words of four letters or more, without function words and numbers: what a note is about. */
function contentWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/\p{L}{4,}/gu) ?? []).filter((w) => !FUNCTION_WORDS.has(w)));
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i] as T)) return i;
  return -1;
}

function toItem(finding: Noted): ExtractedItem {
  return {
    category: finding.category,
    key: finding.key.slice(0, 120),
    query: finding.query.endsWith('?') || finding.query.endsWith('？') ? finding.query : `${finding.query}?`,
    value: finding.value,
    answer: finding.answer.slice(0, 120) || finding.value.slice(0, 120),
    confidence: finding.confidence,
    turn_ids: [finding.turnId],
    ...(finding.reverses ? { reverses: true } : {}),
    ...(finding.replaces ? { replaces: finding.replaces.slice(0, 120) } : {}),
  };
}
