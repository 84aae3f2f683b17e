import type { Turn } from '@hindsight/memory-model';
import { isDegenerate } from './guard.ts';
import { chineseFindings } from './offline/chinese.ts';
import { englishFindings } from './offline/english.ts';
import { newSessionContext } from './offline/finding.ts';
import { dropContradictedDecisions, type Noted, note } from './offline/notes.ts';
import { answerToQuestion, isMention, lastQuestion } from './offline/replies.ts';
import { byLanguage, sentencesOf } from './offline/sentences.ts';
import { ExtractedItem, type Extraction, type Extractor } from './port.ts';
import { isPleasantry } from './small-talk.ts';

/**
 * The part of a user turn the notes are taken from. What a person says about themselves fits in
 * it; a longer turn is a paste (code, a document, logs), which the transcript keeps whole and
 * which would otherwise cost seconds of parsing.
 */
export const NOTE_CHARS_PER_TURN = 2000;

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
