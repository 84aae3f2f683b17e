import type { Turn } from '@hindsight/memory-model';
import type { Finding } from './finding.ts';

/**
 * The session's notes as the rule extractor keeps them: one per slot, the latest finding winning;
 * a reversal takes over the slot of the decision it reverses; an option or decision the user takes
 * back leaves the notes that still offer it.
 */

/** A finding with the turn it came from. */
export interface Noted extends Finding {
  turnId: string;
}

/**
 * Adds a finding to the session's notes. A reversal ("make that Lisbon instead", "算了…还是…")
 * takes over the slot of the decision it reverses, which is dropped: only the standing decision
 * is kept. A later finding on the same slot replaces an earlier one (the user updated it).
 */
export function note(noted: Noted[], finding: Noted): void {
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
export function dropContradictedDecisions(noted: Noted[], turn: Turn): void {
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
