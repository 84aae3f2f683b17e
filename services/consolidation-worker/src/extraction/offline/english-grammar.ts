import { type Doc, nlp, withDates } from './nlp.ts';

const IRREGULAR: Record<string, string> = { am: 'is', are: 'is', were: 'was', have: 'has', do: 'does', go: 'goes' };

/** "live" → "lives", "teach" → "teaches", "carry" → "carries" (the present third person singular). */
export function thirdPersonVerb(verb: string): string {
  const lower = verb.toLowerCase();
  if (IRREGULAR[lower]) return IRREGULAR[lower];
  if (/(s|x|z|ch|sh|o)$/.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

interface Term {
  pre: string;
  text: string;
  post: string;
  tags: string[];
}

function termsOf(doc: Doc): Term[] {
  return (doc.json() as Array<{ terms: Term[] }>).flatMap((s) => s.terms);
}

const FIRST_SINGULAR = new Set(['i']);
const FIRST_PLURAL = new Set(['we']);
const OBJECT_PRONOUN: Record<string, string> = {
  me: 'them',
  us: 'them',
  myself: 'themselves',
  ourselves: 'themselves',
};
const POSSESSIVE: Record<string, string> = { my: 'their', our: 'their', mine: 'theirs', ours: 'theirs' };

/**
 * First words of compound activities ("rock climb", "ice skate", "bird watching"), which compromise
 * tags as verbs: the verb after them is the one that agrees with the subject.
 */
const ACTIVITY_MODIFIERS = new Set(
  'rock ice water bird sky scuba mountain trail speed figure snow wind kite horse roller power free cliff bungee base deep-sea cross-country'.split(
    ' ',
  ),
);

/** A verb that follows "the user" and has to agree with it. */
function agree(term: Term): string {
  const word = term.text;
  const lower = word.toLowerCase();
  if (IRREGULAR[lower]) return IRREGULAR[lower];
  const tags = new Set(term.tags);
  if (tags.has('Modal') || tags.has('PastTense') || tags.has('Gerund') || tags.has('Participle')) return word;
  if (lower.endsWith('s') && !lower.endsWith('ss')) return word;
  if (tags.has('Verb') || tags.has('Infinitive') || tags.has('PresentTense')) return thirdPersonVerb(word);
  return word;
}

/**
 * A first-person clause as a self-contained third-person statement: "I live in Leeds and work
 * as a nurse" → "The user lives in Leeds and works as a nurse", "my wife" → "the user's wife".
 * Contractions are expanded; the verb after the new subject agrees with it (adverbs between are
 * skipped). Everything else keeps the user's own words.
 */
export function toThirdPerson(clause: string, subject = 'the user', userNamed = false): string {
  const doc = nlp(clause);
  doc.contractions().expand();
  const terms = termsOf(doc);
  const out: string[] = [];
  let agreeNext = false;
  // Once the user has been named, "my" reads "their" ("reminded to renew their passport").
  let mentionedUser = userNamed;
  for (const [index, term] of terms.entries()) {
    const lower = term.text.toLowerCase();
    let text = term.text;
    const tags = new Set(term.tags);
    if (agreeNext && ACTIVITY_MODIFIERS.has(lower) && terms[index + 1]?.tags.includes('Verb')) {
      // "rock climb" agrees on its verb ("rock climbs"); "rock climbing" is a noun ("and rock climbing").
      agreeNext = !terms[index + 1]?.tags.includes('Gerund');
    } else if (FIRST_SINGULAR.has(lower) || FIRST_PLURAL.has(lower)) {
      text = subject;
      agreeNext = true;
      mentionedUser = true;
    } else if (OBJECT_PRONOUN[lower]) {
      text = OBJECT_PRONOUN[lower];
    } else if (POSSESSIVE[lower]) {
      text = mentionedUser ? (POSSESSIVE[lower] as string) : `${subject}'s`;
      mentionedUser = true;
    } else if (agreeNext && (tags.has('Verb') || tags.has('Auxiliary') || tags.has('Copula'))) {
      text = agree(term);
      agreeNext = false;
    } else if (agreeNext && !(tags.has('Adverb') || tags.has('Negative'))) {
      agreeNext = false;
    } else if ((lower === 'and' || lower === 'or') && out.length > 0 && mentionedUser) {
      // "… and ramble", "… or rock climb": a second verb of the same subject.
      agreeNext = true;
    }
    out.push(`${term.pre}${text}${term.post}`);
  }
  return keepJoinedUnits(clause, out.join('')).replace(/\s+/g, ' ').trim();
}

/** compromise splits "10k" and "38k" into two terms; keep the user's spelling where they wrote it joined. */
export function keepJoinedUnits(original: string, text: string): string {
  return text.replace(/(\d) ([a-z]{1,3})\b/gi, (whole, digit: string, unit: string) =>
    original.includes(`${digit}${unit}`) ? `${digit}${unit}` : whole,
  );
}

/** The clauses of a text, as compromise splits them (sentence, then comma and conjunction boundaries). */
export function clausesOf(text: string): string[][] {
  // One parse for the whole turn: each sentence view splits into clauses without being parsed again.
  return nlp(text)
    .sentences()
    .map((view) =>
      ((view as Doc).clauses().out('array') as string[]).map((c) => c.trim()).filter((c) => c.length > 0),
    ) as string[][];
}

/** Words without which a text holds no date: compromise-dates (the costly part) only reads texts that have one. */
const DATE_WORDS =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|today|tonight|tomorrow|yesterday|week|weekend|month|year|season|spring|summer|autumn|fall|winter|christmas|easter|new year|morning|evening|noon|midnight|\d{1,2}(?:st|nd|rd|th)|\d{4}|\d{1,2}[/.-]\d{1,2}|\d{1,2}(?::\d\d)?\s?(?:am|pm))\b/i;

/** Dates in `text` resolved against `today` (YYYY-MM-DD): the phrase and a plain rendering. */
export function resolvedDates(text: string, today: string): Array<{ phrase: string; resolved: string }> {
  if (!DATE_WORDS.test(text)) return [];
  const found = withDates(text).dates({ today, timezone: 'UTC' }).json() as Array<{
    text: string;
    dates?: { start?: string; end?: string; duration?: { days?: number; months?: number } };
  }>;
  const results: Array<{ phrase: string; resolved: string }> = [];
  for (const date of found) {
    const start = date.dates?.start;
    if (!start) continue;
    const startDay = new Date(start);
    const end = date.dates?.end ? new Date(date.dates.end) : startDay;
    const days = Math.round((end.getTime() - startDay.getTime()) / 86_400_000);
    const month = startDay.toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    const day = startDay.toLocaleString('en-GB', {
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const resolved = days >= 27 ? month : days >= 6 ? `the week of ${day}` : day;
    // compromise-dates reads "this Friday" on a Monday as today: a weekday it names must be the one it resolves to.
    const named = /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i.exec(date.text)?.[1];
    if (named && !day.toLowerCase().startsWith(named.toLowerCase())) continue;
    results.push({ phrase: date.text.replace(/[.,;!?]+$/, '').trim(), resolved });
  }
  return results;
}

/** Relative phrases ("next month", "tomorrow") need their resolved date next to them to stay true. */
export function isRelativeDate(phrase: string): boolean {
  return /\b(next|this|coming|tomorrow|tonight|today|yesterday|in \d+|in (?:a|two|three|four|few) (?:days?|weeks?|months?)|weekend|end of the (?:week|month))\b/i.test(
    phrase,
  );
}
