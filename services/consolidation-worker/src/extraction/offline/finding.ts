import type { ExtractedItem } from '../port.ts';

/**
 * What the offline extractor makes of one clause, before provenance: the item's category, its
 * slot (`key`, subject + attribute) and the slot's short `answer`, the question it answers and
 * the self-contained third-person `value` that gets stored.
 */
export interface Finding {
  category: ExtractedItem['category'];
  key: string;
  answer: string;
  query: string;
  value: string;
  confidence: number;
  /** A decision the user said instead of an earlier one ("make that Lisbon instead"). */
  reverses?: boolean;
  /** The earlier value named by the user ("instead of Berlin"). */
  replaces?: string;
}

/** What the extractor knows of the session so far, used to read a clause in context. */
export interface SessionContext {
  /** Conversation time of the turn being read (ISO). */
  now: string;
  /** People and pets the user named, by lowercased name: how they relate to the user. */
  people: Map<string, { name: string; relation: string }>;
  /** The last person or pet the user spoke about (resolves "she", "he", "他", "她"). */
  lastPerson?: Person;
  /** Everyone spoken about, most recent last: "him" is the latest one who is a "he". */
  mentioned: Person[];
}

export interface Person {
  name: string;
  relation: string;
  /** How the user refers to them, once known (a gendered relation, a name, or the user's own "he"/"she"). */
  pronoun?: 'he' | 'she';
}

export function newSessionContext(now: string): SessionContext {
  return { now, people: new Map(), mentioned: [] };
}

/** The user spoke about `person`: the one "he"/"she" most likely means next. */
export function mention(ctx: SessionContext, person: Person, pronoun?: 'he' | 'she'): void {
  if (pronoun && !person.pronoun) person.pronoun = pronoun;
  ctx.lastPerson = person;
  ctx.mentioned = [...ctx.mentioned.filter((p) => p !== person), person];
}

/**
 * Whom "he"/"him"/"his" or "she"/"her" stands for: the latest person known by that pronoun, else
 * the latest one not known by the other (the vet named last is not the "him" when the dog is a "he").
 */
export function personFor(ctx: SessionContext, pronoun: string): Person | undefined {
  const wanted = /^(?:he|him|his|他)$/i.test(pronoun)
    ? 'he'
    : /^(?:she|her|hers|她)$/i.test(pronoun)
      ? 'she'
      : undefined;
  if (!wanted) return ctx.lastPerson;
  const latest = [...ctx.mentioned].reverse();
  return latest.find((p) => p.pronoun === wanted) ?? latest.find((p) => p.pronoun === undefined) ?? ctx.lastPerson;
}

/** A slot id part: lowercase ASCII words joined by `_`, or the first characters of other scripts. */
export function slug(text: string): string {
  const ascii = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (ascii || [...text.replace(/[\s\p{P}]/gu, '')].slice(0, 8).join('')).slice(0, 40) || 'x';
}

/** Upper-cases the first letter and ends the text with a full stop (values read as sentences). */
export function sentence(text: string): string {
  const trimmed = text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;!?])/g, '$1')
    .replace(/,(\s*,)+/g, ',')
    .replace(/,\s*([.。!?])/g, '$1')
    .replace(/[,;:\s]+$/, '');
  if (trimmed === '') return trimmed;
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?。！？]$/u.test(first) ? first : `${first}${/\p{Script=Han}/u.test(first) ? '。' : '.'}`;
}
