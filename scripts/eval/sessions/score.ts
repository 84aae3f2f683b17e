/** How a memory is judged against the fixture's gold facts (shared by every system the eval scores). */

const normalise = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, ' ');

const isCjk = (text: string) => /\p{Script=Han}/u.test(text);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One expected word: `a|b` accepts either; Latin words must not continue a Latin word (plurals pass). */
function containsTerm(content: string, term: string): boolean {
  return term.split('|').some((alternative) => {
    const alt = normalise(alternative.trim());
    if (alt === '') return false;
    if (isCjk(alt)) return content.includes(alt);
    return new RegExp(`(?<![a-z0-9\\u00c0-\\u024f])${escapeRegExp(alt)}`, 'u').test(content);
  });
}

/** True when `content` holds every expected word. */
export function holdsAll(content: string, expected: readonly string[]): boolean {
  const text = normalise(content);
  return expected.every((term) => containsTerm(text, term));
}

export function share(hits: number, total: number): number {
  return total === 0 ? 0 : hits / total;
}

/** Negation right before the stale words: "decided not to go with Pickfords", "no hob on the island", "不用复合地板". */
const NEGATED_BEFORE =
  /(?:\bnot|\bno|\bnever|\binstead of|\bagainst|\brather than|\bwithout|不|没|别|不要|不用|不再)\s*(?:\S+\s+){0,3}$/iu;

/**
 * A memory still asserts a decision the user took back when it holds the stale words and does not
 * negate them ("The user decided to do a volcano cake" does; "decided not to go with Pickfords" does not).
 */
export function assertsStale(content: string, stale: readonly string[]): boolean {
  if (!holdsAll(content, stale)) return false;
  const text = normalise(content);
  const first = (stale[0] ?? '')
    .split('|')
    .map((alt) => normalise(alt.trim()))
    .find((alt) => alt && text.includes(alt));
  if (!first) return true;
  return !NEGATED_BEFORE.test(text.slice(0, text.indexOf(first)));
}

const CHOICE =
  /\b(?:decid\w*|chose|chosen|choice|going with|go with|picked|opted|will use|switch\w*|wants? to|plans? to|target\w*)\b|决定|选|还是|改|打算|要/iu;

/**
 * A memory that states a choice or an intention — what a reversal takes back. A fact that merely
 * names the old option ("the quote from Pickfords was 2,400 pounds") does not.
 */
export function statesChoice(memory: { category: string; content: string }): boolean {
  return memory.category === 'decision' || CHOICE.test(memory.content);
}
