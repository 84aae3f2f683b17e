import { isChitChat } from '../small-talk.ts';
import { clausesOf, isRelativeDate, keepJoinedUnits, resolvedDates, toThirdPerson } from './english-grammar.ts';
import { type Finding, mention, type Person, personFor, type SessionContext, sentence, slug } from './finding.ts';
import {
  ANSWER_ASPECTS_EN,
  ANSWER_OBJECTS_EN,
  CONDITIONS_EN,
  DELIVERABLES_EN,
  DIETS_EN,
  INJURIES_EN,
  JOBS_EN,
  RELATIONS_EN,
  STANDING_MARKERS_EN,
} from './lexicon.ts';
import { nlp } from './nlp.ts';

const RELATION = `(${[...RELATIONS_EN]
  .sort((a, b) => b.length - a.length)
  .map((r) => r.replace(/[-]/g, '[- ]?').replace(/^([a-z])/, (c) => `[${c}${c.toUpperCase()}]`))
  .join('|')})`;
/** A name as people write it: capitalised words, titles allowed ("Dr. Okafor", "Ms. Haruka Sato"). */
const NAME = String.raw`((?:(?:Dr|Mr|Mrs|Ms|Prof|Professor)\.?\s+)?[A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)?)`;

const LEAD =
  /^(?:(?:and|but|so|also|plus|oh|ah|btw|by the way|hmm+|um+|uh+|ok(?:ay)?|yeah|yes|yep|well|anyway|then|cool|great|good|nice|right|alright|ugh|lol|haha+|hi|hello|hey|hiya|hola|morning|good morning|good evening|evening|thanks|thank you)\b[\s,!.:-]*)+/i;

const QUESTION_START =
  /^(?:what|which|who|whom|whose|where|when|why|how|is|are|am|was|were|do|does|did|can|could|would|should|shall|will|may|might|have|has|any)\b/i;

const HEDGES =
  /^i (?:think|guess|suppose|wonder|mean|bet|hope|agree|see|understand|forgot|am not sure|was wondering|would love to know|feel like)\b/i;

/** Passing states, feelings about the conversation, and the user leaving. */
const TRANSIENT =
  /\b(tired|exhausted|bored|sleepy|hungry|drowning|stressed|overwhelmed|out of time|gonna stop|going to stop|stop here|enough for (?:today|tonight)|that is all|that's all|in a meeting|on my way|running late|right now|miserable|a nightmare|hectic|crazy busy|long week|long day)\b/i;

/** Reads one user turn (English): its sentences, their clauses, each against the frames below. */
export function englishFindings(text: string, ctx: SessionContext): Finding[] {
  const findings: Finding[] = [];
  for (const clauses of clausesOf(text).map(regroup)) {
    const sentenceText = clauses.join(' ');
    if (isQuestionSentence(sentenceText)) continue;
    let carried: Finding | undefined;
    clauses.forEach((raw, index) => {
      // compromise ends a clause before a dash and leaves the dash on it ("allergic to gluten —").
      const clause = raw
        .replace(LEAD, '')
        .replace(/[\s\p{Pd}]+$/u, '')
        .replace(/[.!;]+$/, '')
        .trim();
      if (clause.split(/\s+/).length < 2 || isChitChat(clause) || isQuestionSentence(raw)) {
        carried = undefined;
        return;
      }
      const latest = findings.at(-1);
      if (latest && correctFigure(latest, clause)) return;
      const found = readClause(clause, { previous: clauses[index - 1], next: clauses[index + 1], ctx });
      if (found.length > 0) {
        findings.push(...found);
        carried = found.at(-1);
        return;
      }
      // A clause that only adds detail to the one before ("…, Maya is 7 and Tom is 4").
      if (carried && carried.category === 'fact' && !/^i\b/i.test(clause) && !TRANSIENT.test(clause)) {
        const detail = toThirdPerson(clause.replace(/[,;:\s]+$/, ''), 'the user', true);
        const longer = `${carried.value.replace(/[.。]$/, '')}, ${detail}.`;
        if (longer.length <= 200) carried.value = longer;
      }
    });
  }
  return findings;
}

/**
 * "He weighs 14 kilos. Sorry, 12 kilos": a bare correction of a figure rewrites the figure of the
 * note just taken (same unit), rather than becoming a note of its own.
 */
function correctFigure(note: Finding, clause: string): boolean {
  const m =
    /^(?:sorry|no|oops|sorry no|i mean|i meant|correction|actually)[,:\s]+(?:it is\s+|it's\s+|make that\s+)?(\d[\d.,]*)\s*([a-z%]+)?$/i.exec(
      clause.trim().replace(/[,;.\s]+$/, ''),
    );
  if (!m) return false;
  const [, figure, unit] = m;
  const old = new RegExp(String.raw`\b\d[\d.,]*(\s*${unit ? unit.replace(/s$/, '') : ''}\w*)`, 'i');
  if (!old.test(note.value)) return false;
  note.value = note.value.replace(old, `${figure}$1`);
  note.answer = note.answer.replace(/\d[\d.,]*/, figure as string);
  return true;
}

/**
 * compromise's clauses, adjusted to what a note needs: a relative or contrastive tail ("which is
 * over our 1,500 budget", "but only at the end", "not inline") stays with its clause, and a second
 * first-person statement joined by "and"/"but" ("… June and I'm drowning in logistics") is its own.
 */
function regroup(clauses: string[]): string[] {
  const out: string[] = [];
  for (const clause of clauses) {
    const parts = clause.split(/\s+(?:and|but|so)\s+(?=(?:i|i'm|i've|i'll|we|we're)\b)/i);
    for (const part of parts) {
      const previous = out.at(-1);
      if (
        previous !== undefined &&
        (/^(?:which|who|where|but only|but not|not|only|except|never)\b/i.test(part) || /^no\s+[a-z]/i.test(part))
      ) {
        out[out.length - 1] = `${previous.replace(/[,;]\s*$/, '')}, ${part}`;
      } else if (
        previous !== undefined &&
        !/[,;:]\s*$/.test(previous) &&
        previous.split(/\s+/).length <= 2 &&
        /^(?:is|are|was|were|has|have|had)\b/i.test(part)
      ) {
        // "Hybrid | is fine if …": compromise cut the subject off its verb.
        out[out.length - 1] = `${previous} ${part}`;
      } else {
        out.push(part);
      }
    }
  }
  return out;
}

function isQuestionSentence(text: string): boolean {
  const trimmed = text.trim();
  if (/\bremind me\b/i.test(trimmed)) return false;
  return (
    /\?\s*$/.test(trimmed) ||
    (QUESTION_START.test(trimmed) && !/^(?:is|are)\s+\w+ing\b/i.test(trimmed) && /\?/.test(trimmed))
  );
}

interface ClauseContext {
  previous: string | undefined;
  next: string | undefined;
  ctx: SessionContext;
}

type Frame = (clause: string, expanded: string, around: ClauseContext) => Finding[] | Finding | undefined;

/** Most specific first: the first frame that recognises the clause decides what it is. */
const FRAMES: Frame[] = [
  reminderFrame,
  decisionFrame,
  changeFrame,
  instructionFrame,
  allergyFrame,
  relationFrame,
  knownPersonFrame,
  organisationFrame,
  identityFrame,
  healthFrame,
  dietFrame,
  budgetFrame,
  preferenceFrame,
  constraintFrame,
  commitmentFrame,
  planFrame,
  firstPersonFrame,
  statedFrame,
];

/** "I need a 10-question quiz for Thursday", "I want help with…": work asked of the assistant. */
function isRequest(expanded: string): boolean {
  const m =
    /^(?:i|we)\s+(?:really\s+|also\s+|just\s+)?(?:need|want|would like|am looking for|are looking for)\s+(.+)$/i.exec(
      expanded,
    );
  if (!m) return false;
  const object = m[1] as string;
  return (
    DELIVERABLES_EN.test(object) ||
    /^(?:to\s+)?(?:help|know|ask|plan|find|figure|prepare|draft|write|get some)\b/i.test(object)
  );
}

/**
 * A verb whose object is a bare pronoun ("left it to me", "terrified of them"): nothing to remember
 * without context. "do that date" is a determiner with its noun, not a pronoun.
 */
const PRONOUN_OBJECT =
  /\b(?:left|did|do|does|sell|sold|use|like|love|want|of|put|sent|bought|make|made|keep|try|answer|fix|show|suggest|recommend|mention|take|handle)\s+(?:(?:it|them|one)\b(?!\s+\w+ing)|(?:that|this|those)\b(?!\s+(?!for\b|with\b|again\b|too\b|now\b)[a-z]{3,}))/i;

function readClause(clause: string, around: ClauseContext): Finding[] {
  const expanded = expand(clause);
  if (TRANSIENT.test(expanded) || isRequest(expanded)) return [];
  for (const frame of FRAMES) {
    const found = frame(clause, expanded, around);
    if (!found) continue;
    const list = (Array.isArray(found) ? found : [found]).filter(
      (f) => f.value.length >= 8 && (f.category === 'decision' || !PRONOUN_OBJECT.test(f.value)),
    );
    // "Make the emergency fund target 6k instead", "sorry, I meant the 14th": an update of something said before.
    const updates =
      CORRECTION_CUE.test(expanded) || (around.previous !== undefined && CORRECTION_CUE.test(around.previous));
    if (list.length > 0)
      return list.map((f) => ({ ...f, value: clip(f.value), ...(updates ? { reverses: true } : {}) }));
  }
  return [];
}

function expand(clause: string): string {
  const doc = nlp(clause);
  doc.contractions().expand();
  return keepJoinedUnits(clause, doc.text())
    .replace(/\blet us\b/gi, "let's")
    .replace(/\bcan not\b/gi, 'cannot');
}

function clip(value: string): string {
  if (value.length <= 200) return value;
  const cut = value.slice(0, 198);
  return `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}

/** " (next month: April 2026)" for each relative date phrase of the clause. */
function dateNote(clause: string, ctx: SessionContext): string {
  const notes = resolvedDates(clause, ctx.now.slice(0, 10))
    .filter((d) => isRelativeDate(d.phrase))
    .map((d) => `${d.phrase}: ${d.resolved}`);
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}

function hasDate(clause: string, ctx: SessionContext): boolean {
  return (
    resolvedDates(clause, ctx.now.slice(0, 10)).length > 0 ||
    /\b(tonight|tomorrow|this week|next season|q[1-4])\b/i.test(clause)
  );
}

function headWords(text: string, count = 3): string {
  return text
    .toLowerCase()
    .replace(/\b(the|a|an|my|our|your|to|of|for|and|some|this|that|them|it)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, count)
    .join(' ');
}

function userSays(clause: string): string {
  return sentence(toThirdPerson(clause));
}

// ── frames ────────────────────────────────────────────────────────────────────────────────

function reminderFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const m = /\b(?:remind me|do not let me forget|don't let me forget|note to self)\b[:,]?\s*(.*)$/i.exec(expanded);
  if (!m) return undefined;
  const what = (m[1] ?? '').replace(/^(?:to|about|that)\s+/i, '').trim();
  if (what.length < 3) return undefined;
  const rest = toThirdPerson(what, 'the user', true).replace(
    /^(next \w+|tomorrow|tonight|on \w+|this \w+)\s+to\s+/i,
    '$1 to ',
  );
  return {
    category: 'commitment',
    key: `commitment.reminder.${slug(headWords(what.replace(/^(?:next \w+|tomorrow|tonight|on \w+)\s+(?:to\s+)?/i, '')))}`,
    answer: what,
    query: 'What did the user ask to be reminded about?',
    value: sentence(
      `The user asked to be reminded ${/^to\b/i.test(rest) ? '' : 'to '}${rest}${dateNote(clause, ctx)}`,
    ).replace(/reminded to (next \w+|tomorrow|tonight|on \w+) to /i, 'reminded $1 to '),
    confidence: 0.85,
  };
}

const DECIDE_VERBS =
  '(?:go with|do|use|book|get|try|pick|choose|take|shortlist|make it|keep|stick with|go for|switch to|switch|put|move|add|hire|buy|order|plant|grow|start|have|make|host|hold|serve|feed|price|charge)';

const CORRECTION_CUE =
  /\b(instead|actually|sorry,? i meant|i meant|correction|make (?:that|it)|change (?:that|it) to)\b/i;

/** Where the option a reversal names ends: "instead of Greenleaf| from July". */
const AFTER_OPTION = String.raw`(?=\s+(?:from|on|in|at|by|for|starting|until|because|since)\b|[,.;]|$)`;

const REVERSAL_CUE =
  /\b(instead|actually|on second thought|scratch that|scrap that|no wait|wait|rather|after all|changed my mind)\b/i;

function decisionFrame(clause: string, expanded: string, { ctx, previous }: ClauseContext): Finding | undefined {
  // "Oh wait, scrap that, no hob on the island": the cue and the decision are separate clauses.
  const cueBefore = previous !== undefined && REVERSAL_CUE.test(previous) && previous.split(/\s+/).length <= 4;
  const text = (cueBefore && /^no\s+/i.test(expanded) ? `scrap that, ${expanded}` : expanded).replace(/[.!]+$/, '');
  const reverses = cueBefore || REVERSAL_CUE.test(text);
  const replaced = new RegExp(String.raw`\binstead of\s+(?:the\s+)?(.+?)${AFTER_OPTION}`, 'i').exec(text)?.[1]?.trim();
  const clean = (object: string) =>
    object
      .replace(/[,;.\s]+$/, '')
      .replace(new RegExp(String.raw`\s*\binstead of\s+.+?${AFTER_OPTION}`, 'i'), '')
      .replace(/\s*\binstead\b/i, '')
      .replace(/\s*\bafter all\b/i, '')
      .replace(/\s*\bthen\b\s*$/i, '')
      .trim();

  const negative =
    /\blet's not (?:do |get |go with |use |add |book |have |buy |take |go to |go )?(.+)$/i.exec(text) ??
    /^(?:(?:actually|no|ok|so|then|scratch that|scrap that)[,\s]+)*(?:forget|skip|scrap|drop|cancel)\s+(?!it\b|that\b)((?:the\s+)?.+)$/i.exec(
      text,
    ) ??
    /\b(?:scrap|scratch) that,?\s+no\s+(.+)$/i.exec(text);
  if (negative) {
    const object = clean(negative[1] ?? '')
      .replace(/\bthen\b/i, '')
      .trim();
    if (object.length < 2 || /^(it|that|this)$/i.test(object)) return undefined;
    return decision(
      `not_${slug(headWords(object, 2))}`,
      'no',
      `The user decided not to ${/^(?:do|get|use|add|book|have|buy|take)\b/i.test(object) || startsWithVerb(object) ? '' : 'go with '}${toThirdPerson(object)}`,
      object,
      { reverses, replaced },
      ctx,
      clause,
    );
  }

  const positive =
    new RegExp(
      String.raw`\b(?:let's|we will|we'll|i will|i'll|we are going to|i am going to|we should|i want to)\s+(?:(?:just|then|definitely)\s+)?(${DECIDE_VERBS})\s+(.+)$`,
      'i',
    ).exec(text) ??
    /\bmake (?:that|it)\s+(.+)$/i.exec(text) ??
    /\b(?:change|switch) (?:that|it) to\s+(.+)$/i.exec(text) ??
    /\b(?:we|i) (?:have |had )?(?:decided|chosen|chose|agreed) (?:to |on |that )?(.+)$/i.exec(text) ??
    /^(.{2,40}) it is$/i.exec(text) ??
    /\b(?:we are|we're|i am|i'm) (?:going with|switching to|changing to|going for)\s+(.+)$/i.exec(text);
  if (!positive) return undefined;
  const verb = positive.length > 2 ? (positive[1] ?? '') : '';
  // "switch him to a lamb kibble", "host it on Anchor": the option follows the pronoun and its preposition.
  // "do it at home" says nothing without "it"; "host it on Anchor" names the option.
  const pronounThen =
    /^(?:(?:him|her|them|us)\s+(?:to|on|at|in|with|from)\s+(.+)|it\s+(?:on|at|in|with|to)\s+([A-Z].*))$/.exec(
      positive[2] ?? '',
    );
  const said = clean(positive.length > 2 ? (positive[2] ?? '') : (positive[1] ?? ''));
  const object = pronounThen && verb ? clean((pronounThen[1] ?? pronounThen[2]) as string) : said;
  if (object.length < 2 || /^(?:it|that|this|one|them|so|sure)\b/i.test(object) || DELIVERABLES_EN.test(object))
    return undefined;
  // "let's do a 3-week plan" asks for work; "I'll start on Saturday" is a commitment (below).
  if (/^(start|have)$/i.test(verb) && !reverses) return undefined;
  const phrase =
    verb && !/^make it$/i.test(verb)
      ? `${verb} ${pronounThen ? resolvePronoun(said, ctx) : object}`
      : startsWithVerb(object)
        ? object
        : `go with ${object}`;
  return decision(
    slug(headWords(object, 2)),
    object,
    `The user decided to ${toThirdPerson(phrase)}`,
    pronounThen ? `${verb} ${said}` : object,
    { reverses, replaced },
    ctx,
    clause,
  );
}

/** "him" → "Biscuit" when the user just spoke of Biscuit (the last person or pet named). */
function resolvePronoun(text: string, ctx: SessionContext): string {
  const pronoun = /^(him|her)\b/i.exec(text)?.[1];
  const person = pronoun ? personFor(ctx, pronoun) : undefined;
  if (!person || person.name.startsWith("the user's")) return text;
  return text.replace(/^(?:him|her)\b/i, person.name);
}

const SHE_RELATIONS =
  /^(?:wife|fiancée|fiancee|girlfriend|daughter|mom|mum|mother|sister|grandmother|grandma|aunt|niece|mother-in-law)$/i;
const HE_RELATIONS =
  /^(?:husband|fiancé|fiance|boyfriend|son|dad|father|brother|grandfather|grandpa|uncle|nephew|father-in-law)$/i;

/** "he" or "she" when the relation or the first name says so (compromise knows many first names). */
function pronounOf(person: Person): 'he' | 'she' | undefined {
  if (SHE_RELATIONS.test(person.relation)) return 'she';
  if (HE_RELATIONS.test(person.relation)) return 'he';
  const first = person.name.replace(/^(?:Dr|Mr|Mrs|Ms|Prof|Professor)\.?\s+/, '').split(/\s+/)[0] ?? '';
  if (/^(?:Mrs|Ms)\b/.test(person.name)) return 'she';
  if (/^Mr\b/.test(person.name)) return 'he';
  const doc = nlp(`I met ${first} today`);
  if (doc.has('#FemaleName')) return 'she';
  if (doc.has('#MaleName')) return 'he';
  return undefined;
}

/**
 * Whether a decision's object is itself a verb phrase ("apply through agencies", "sign anything
 * longer than six months"): "decided not to apply …", never "decided not to go with apply …".
 */
function startsWithVerb(object: string): boolean {
  // A word list, not the tagger: compromise reads "hob on the island" as a verb phrase too.
  return /^(?:use|do|get|go|book|try|buy|hire|take|keep|move|plant|grow|build|launch|hold|have|make|rent|switch|stay|skip|order|cook|run|apply|sign|spend|invite|call|pay|drive|fly|walk|tell|ask|wait|sell|paint|change|cancel|bother|rush|renew|register|join|commit|travel|send|post|publish|serve|bake|install|upgrade|pick|choose|bring|invest|borrow|lend|offer|accept|hold off|put|consider|pursue|include|visit|attend|enter|submit|chase|price|charge)\b/i.test(
    object,
  );
}

function decision(
  topic: string,
  answer: string,
  value: string,
  object: string,
  how: { reverses: boolean; replaced: string | undefined },
  ctx: SessionContext,
  clause: string,
): Finding {
  return {
    category: 'decision',
    key: `decision.${topic}`,
    answer,
    query: `What did the user decide about ${headWords(object, 3) || 'this'}?`,
    value: sentence(`${value}${dateNote(clause, ctx)}`),
    confidence: 0.8,
    ...(how.reverses ? { reverses: true } : {}),
    ...(how.replaced ? { replaces: how.replaced } : {}),
  };
}

function instructionFrame(_clause: string, expanded: string): Finding | undefined {
  const text = expanded.replace(/[.!]+$/, '').trim();
  const imperative =
    /^(?:please\s+|from now on,?\s+|in future,?\s+|going forward,?\s+)*(?:always|never|do not|don't|use|keep|make|put|write|give|show|cite|answer|reply|respond|include|add|avoid|stop|explain|quiz|correct|mark|label|list|format|send|speak|talk|only|no|skip|spare|leave out|drop)\b/i.test(
      text,
    ) ||
    /\bplease\s*$/i.test(text) ||
    /\b(?:i want you to|i would like you to|i'd like you to)\b/i.test(text);
  const shaped =
    /^(?:[\w\s-]{2,40})\s+only(?:\s+please)?(?:,|$)/i.test(text) || /\bshould (?:always|never)\b/i.test(text);
  if (!imperative && !shaped) return undefined;
  if (!STANDING_MARKERS_EN.test(text) && !(ANSWER_OBJECTS_EN.test(text) && !/\bme\s+(?:a|an|some)\b/i.test(text)))
    return undefined;
  // "Write me a plan", "give me a list": one-off work.
  if (
    /^(?:please\s+)?(?:write|give|show|send|make|draft|list)\s+me\s+(?:a|an|some|the)\b/i.test(text) &&
    !STANDING_MARKERS_EN.test(text)
  )
    return undefined;
  const aspect =
    ANSWER_ASPECTS_EN.find(([pattern]) => pattern.test(text))?.[1] ??
    slug(headWords(text.replace(/^(please|always|never)\s+/gi, ''), 2));
  const body = text
    .replace(/^please,?\s+/i, '')
    .replace(/,?\s*please\s*$/i, '')
    .replace(/\byour\b/gi, "the assistant's")
    .replace(/\byou\b/gi, 'the assistant')
    .replace(/\bme\b/gi, 'the user')
    .replace(/\bmy\b/gi, "the user's")
    .replace(/\bi\b/g, 'the user')
    .replace(/\bour\b/gi, "the user's");
  const startsWithVerb =
    /^(?:always|never|do not|don't|use|keep|make|put|write|give|show|cite|answer|reply|respond|include|add|avoid|stop|explain|quiz|correct|mark|label|list|format|send|speak|talk|only|skip|spare|leave out|drop)\b/i.test(
      body,
    );
  const value = startsWithVerb
    ? `The user wants the assistant to ${body
        .replace(/^don't\b/i, 'not')
        .replace(/^do not\b/i, 'not')
        .replace(/^./, (c) => c.toLowerCase())}`
    : `The user asks for: ${body}`;
  return {
    category: 'preference',
    key: `preference.${aspect}`,
    answer: body,
    query: 'How does the user want the assistant to answer?',
    value: sentence(value),
    confidence: 0.85,
  };
}

const ADVERB = String.raw`(?:really|just|always|totally|honestly|definitely|simply)\s+`;
/** Who something disagrees with: "me", "him", "my stomach", "his skin". */
const AFFECTED = String.raw`(?:me|him|her|them|(?:my|his|her|their)\s+\w+)`;
const BAD_EFFECT = String.raw`(?:sick|ill|itchy|itch|break out|bleed|hives|a rash|rashes|a headache|headaches|migraines?|bloated|nauseous|throw up|vomit|swell|swollen|cramps|diarrh(?:o)?ea|wheez\w*)`;
const CANNOT_HAVE = /\b(?:cannot|can't|can not) (?:eat|have|drink|take|touch|tolerate)\s+([^,.;]+)/i;

function allergyFrame(_clause: string, expanded: string, around: ClauseContext): Finding | undefined {
  const text = expanded;
  let owner = ownerOf(text, around.ctx);
  let thing: string | undefined =
    /\ballergic to\s+([^,.;]+)/i.exec(text)?.[1] ??
    /\b(?:a|an|have|has)\s+(?:severe\s+|bad\s+|mild\s+)?([\w' -]{2,30}?)\s+allergy\b/i.exec(text)?.[1] ??
    /\b(?:intolerant to|intolerance to|react badly to|sensitive to)\s+([^,.;]+)/i.exec(text)?.[1] ??
    new RegExp(
      String.raw`^([\w' -]{2,30}?)\s+(?:${ADVERB})?(?:makes?|made|gives?|gave) ${AFFECTED}\s+(?:${ADVERB})?${BAD_EFFECT}`,
      'i',
    ).exec(text)?.[1] ??
    new RegExp(
      String.raw`^([\w' -]{2,30}?)\s+(?:${ADVERB})?(?:does not|do not|did not) agree with ${AFFECTED}`,
      'i',
    ).exec(text)?.[1] ??
    /^([\w' -]{2,30}?)\s+is (?:a )?(?:no-go|no go|off limits|off-limits|a no-no)\b/i.exec(text)?.[1] ??
    /\b(lactose|gluten)[- ]intolerant\b/i.exec(text)?.[1];
  // "I can't eat shellfish, I'm allergic", "Grandma can't have anything with gluten, she's coeliac":
  // what cannot be eaten is in one clause, why in the one next to it.
  const neighbour = [around.previous, around.next].map((c) => (c ? expand(c) : '')).join(' ');
  const why = (t: string) => /\ballergic\b|\ballergy\b|\bintoleran/i.test(t) || CONDITIONS_EN.test(t);
  if (!thing && why(text)) thing = CANNOT_HAVE.exec(neighbour)?.[1];
  if (!thing && why(neighbour)) thing = CANNOT_HAVE.exec(text)?.[1];
  if (!thing) return undefined;
  thing = thing
    .replace(/\s*[—–].*$|\s+-\s.*$/u, '')
    .replace(/\b(so|and|but|which|that|really|just)\b.*$/i, '')
    .replace(/^(?:anything with|any)\s+/i, '')
    .trim();
  if (thing.length < 2 || /^(?:it|that|this|they|he|she)$/i.test(thing)) return undefined;
  // "chicken does not agree with him": the one it disagrees with is the owner.
  const affected = /\b(?:agree with|makes?|made|gives?|gave|for)\s+(him|her|his|them)\b/i.exec(text)?.[1];
  const meant = affected ? personFor(around.ctx, affected) : undefined;
  if (meant && owner.isUser) owner = personOwner(meant.name, meant.relation);
  const intolerance =
    /intoleran|react|sensitive|makes?|made|gives?|gave|agree|no-go|no go|off.limits|no-no|cannot|can't|can not/i.test(
      text,
    ) && !/allerg/i.test(text);
  const who = owner.subject;
  return {
    category: 'fact',
    key: `${owner.key}.allergy.${slug(thing)}`,
    answer: thing,
    query: owner.isUser ? 'What is the user allergic to?' : `What is ${owner.name} allergic to?`,
    value: sentence(
      intolerance
        ? `${who} ${owner.isUser ? 'does' : 'does'} not tolerate ${thing} (${thing} makes ${owner.isUser ? 'them' : 'them'} ill); avoid it`
        : `${who} is allergic to ${thing}; never suggest anything that contains ${thing}`,
    ),
    confidence: 0.9,
  };
}

interface Owner {
  isUser: boolean;
  key: string;
  name: string;
  /** How a value names them: "The user", "Pepper (the user's dog)". */
  subject: string;
}

const USER: Owner = { isUser: true, key: 'user', name: 'the user', subject: 'The user' };

/** Whom a clause is about: the user, a relation ("my son"), a named person, or the last one spoken of. */
function ownerOf(text: string, ctx: SessionContext): Owner {
  if (/^(?:i|we|my|our)\b/i.test(text)) {
    const rel = new RegExp(String.raw`^(?:my|our)\s+${RELATION}\b`, 'i').exec(text)?.[1];
    if (!rel) return USER;
    const named = [...ctx.people.values()].find((p) => p.relation.toLowerCase() === rel.toLowerCase());
    return personOwner(named?.name ?? `the user's ${rel}`, rel);
  }
  const first = /^([A-Z][\p{L}'-]+)\b/u.exec(text)?.[1];
  const known = first ? ctx.people.get(first.toLowerCase()) : undefined;
  if (known) return personOwner(known.name, known.relation);
  // "Grandma can't have gluten": a relation named like a name stands for the one of that relation.
  const kin = first ? new RegExp(`^${RELATION}$`, 'i').exec(first)?.[1]?.toLowerCase() : undefined;
  if (kin) {
    const named = [...ctx.people.values()].find((p) => relationOf(p.relation) === relationOf(kin));
    return personOwner(named?.name ?? `the user's ${kin}`, named?.relation ?? kin);
  }
  const pronoun = /^(she|he|they)\b/i.exec(text)?.[1];
  const meant = pronoun ? personFor(ctx, pronoun) : undefined;
  if (meant) return personOwner(meant.name, meant.relation);
  const friend = /\b(?:one of (?:his|her|their|my) friends|(?:his|her|their) friend|one of them)\b/i.test(text);
  return friend ? { isUser: false, key: 'guest', name: 'a guest', subject: 'A guest the user mentioned' } : USER;
}

/** A word for someone by what they are to the user or do: a relation, a job, or what compromise knows as an actor. */
function isRole(word: string): boolean {
  return (
    JOBS_EN.test(word) || new RegExp(`^${RELATION}$`, 'i').test(word) || nlp(`our ${word} is here`).has('our #Actor')
  );
}

/** One word per relation: "grandma" and "grandmother", "mum" and "mother" are the same person. */
function relationOf(word: string): string {
  const same: Record<string, string> = {
    grandma: 'grandmother',
    granny: 'grandmother',
    grandpa: 'grandfather',
    mum: 'mother',
    mom: 'mother',
    dad: 'father',
  };
  return same[word.toLowerCase()] ?? word.toLowerCase();
}

function personOwner(name: string, relation: string): Owner {
  const described = name.startsWith("the user's") ? name : `${name} (the user's ${relation})`;
  return {
    isUser: false,
    key: `person.${slug(name.replace(/^the user's /, ''))}`,
    name,
    subject: described.charAt(0).toUpperCase() + described.slice(1),
  };
}

function relationFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const text = clause.replace(/^(?:and|also)\s+/i, '');
  const patterns: Array<[RegExp, number, number]> = [
    // Names are capitalised: no `i` flag, so "my wife Priya is …" never takes "is" for a name.
    [new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${RELATION},?\s+(?:is\s+)?(?:called\s+|named\s+)?${NAME}`, 'u'), 1, 2],
    [new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${RELATION}(?:'s)?\s+name is\s+${NAME}`, 'u'), 1, 2],
    [new RegExp(String.raw`\b${NAME},\s+(?:my|our)\s+${RELATION}\b`, 'u'), 2, 1],
    [
      /\b(?:a|an|our|my)\s+((?:[\w-]+\s+){0,2}?(?:dog|cat|puppy|kitten|greyhound|labrador|terrier|spaniel|poodle|retriever|collie|rabbit|parrot|horse|hamster))\s+(?:called|named)\s+([A-Z][\p{L}'-]+)/iu,
      1,
      2,
    ],
    // Someone the user deals with, by their role: "a recruiter called Tom Baxter", "our accompanist Ben".
    [
      new RegExp(String.raw`\b(?:[Aa]n?|[Oo]ur|[Mm]y)\s+((?:[\w-]+\s+)?[\w-]+)\s+(?:called|named)\s+${NAME}`, 'u'),
      1,
      2,
    ],
    [new RegExp(String.raw`\b(?:[Oo]ur|[Mm]y)\s+([a-z][\w-]+),?\s+(?:is\s+)?${NAME}`, 'u'), 1, 2],
  ];
  for (const [index, [pattern, relIndex, nameIndex]] of patterns.entries()) {
    const m = pattern.exec(text);
    if (!m) continue;
    const relation = (m[relIndex] as string).toLowerCase();
    if (index >= patterns.length - 2 && !isRole(relation)) continue;
    const name = (m[nameIndex] as string).trim();
    if (/^(is|was|and|the|a|an|who|said|says|wants|has|had|lives|loves|likes|will|can)$/i.test(name)) continue;
    // Case-insensitive RELATION let "my wife Priya" through; the name itself must be capitalised.
    if (!/^(?:Dr|Mr|Mrs|Ms|Prof|Professor)?\.?\s*[A-Z]/u.test(name)) continue;
    const person: Person = { name, relation: relation.replace(/^(?:rescue|old|new|little|big)\s+/, '') };
    ctx.people.set(name.toLowerCase().replace(/^(?:dr|mr|mrs|ms|prof|professor)\.?\s+/, ''), person);
    ctx.people.set(name.toLowerCase(), person);
    // "My dog Biscuit keeps scratching his ears": the pronoun the user uses for them settles "he".
    const own = /\b(he|his|him|she|her)\b/i.exec(text.slice((m.index ?? 0) + m[0].length))?.[1];
    mention(ctx, person, pronounOf(person) ?? (own ? (/^(?:he|his|him)$/i.test(own) ? 'he' : 'she') : undefined));
    const value = userSays(expanded);
    return {
      category: 'fact',
      key: `person.${slug(name)}`,
      answer: `${relation}: ${name}`,
      query: `Who is ${name}, the user's ${person.relation}?`,
      value: value.length >= 20 ? value : sentence(`${name} is the user's ${person.relation}`),
      confidence: 0.85,
    };
  }
  // "my dad was diagnosed with …", "my vet said …": a relation with something said of them.
  const rel = new RegExp(String.raw`^(?:my|our)\s+${RELATION}\s+(?!is called|'s name)(\w+.*)$`, 'i').exec(text);
  if (rel && (rel[2] ?? '').split(/\s+/).length >= 2) {
    const relation = (rel[1] as string).toLowerCase();
    const named = [...ctx.people.values()].find((p) => p.relation === relation);
    const person = named ?? { name: `the user's ${relation}`, relation };
    mention(ctx, person, pronounOf(person));
    return {
      category: 'fact',
      key: `person.${slug(relation)}.${slug(headWords(rel[2] as string, 2))}`,
      answer: rel[2] as string,
      query: `What did the user say about their ${relation}?`,
      value: userSays(expanded),
      confidence: 0.75,
    };
  }
  return undefined;
}

function knownPersonFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const first =
    /^([A-Z][\p{L}'-]+)(?:'s)?\s+(is|was|has|had|does|did|wants|loves|likes|hates|cannot|can't|can|uses|lives|works|eats|needs|plays|goes|gets|takes|runs)\b/u.exec(
      clause,
    );
  let person = first ? ctx.people.get((first[1] as string).toLowerCase()) : undefined;
  let rest = first ? clause.slice((first[1] as string).length).trim() : '';
  const pronoun =
    /^(she|he)\s+(?:is|'s|was|has|had|does|wants|loves|likes|hates|cannot|can't|can|uses|lives|works|eats|needs|plays|weighs|weighed|gets|keeps|turns|takes)\b/i.exec(
      expanded,
    )?.[1];
  const meant = pronoun ? personFor(ctx, pronoun) : undefined;
  if (!person && pronoun && meant) {
    person = meant;
    rest = expanded.replace(/^(?:she|he)\b/i, '').trim();
  }
  if (!person || rest.split(/\s+/).length < 2 || TRANSIENT.test(rest)) return undefined;
  mention(ctx, person, pronoun ? (pronoun.toLowerCase() as 'he' | 'she') : undefined);
  const subject = person.name.startsWith("the user's") ? person.name : `${person.name} (the user's ${person.relation})`;
  const diet = DIETS_EN.exec(rest)?.[1];
  return {
    category: 'fact',
    key: `person.${slug(person.name.replace(/^the user's /, ''))}.${diet ? 'diet' : slug(headWords(rest.replace(/^(is|was|has)\s+/i, ''), 2))}`,
    answer: rest,
    query: `What did the user say about ${person.name}?`,
    value: sentence(`${subject} ${rest.replace(/\bme\b/gi, 'the user').replace(/\bmy\b/gi, "the user's")}`),
    confidence: 0.8,
  };
}

function organisationFrame(_clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const named =
    /\b(?:our|my)\s+(startup|company|business|firm|team|agency|shop|clinic|school|lab|studio|band|app|product|co-op|charity|restaurant|bakery|practice|podcast|channel|project)\s+is\s+(?:called|named)\s+([^,.;]+)/i.exec(
      expanded,
    );
  if (named) {
    ctx.people.set('__org', { name: (named[2] as string).trim(), relation: (named[1] as string).toLowerCase() });
    return {
      category: 'fact',
      key: 'org.name',
      answer: (named[2] as string).trim(),
      query: `What is the user's ${named[1]} called?`,
      value: sentence(`The user's ${named[1]?.toLowerCase()} is called ${(named[2] as string).trim()}`),
      confidence: 0.9,
    };
  }
  const org = ctx.people.get('__org');
  if (!org || !/^we\b/i.test(expanded)) return undefined;
  const body = expanded.replace(/^we\s+/i, '');
  const verb = /^(?:now\s+|also\s+|currently\s+)?(\w+)/i.exec(body)?.[1] ?? '';
  if (/^(think|guess|hope|need|want|should)$/i.test(verb)) return undefined;
  return {
    category: 'fact',
    key: `org.${slug(headWords(body, 2))}`,
    answer: body,
    query: `What did the user say about ${org.name}?`,
    value: sentence(toThirdPerson(`we ${body}`, `${org.name} (the user's ${org.relation})`)),
    confidence: 0.8,
  };
}

function identityFrame(_clause: string, expanded: string): Finding | undefined {
  const name = /\b(?:my name is|call me|i am called)\s+([A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)?)/u.exec(expanded)?.[1];
  if (name) return fact('user.name', name, "What is the user's name?", `The user's name is ${name}`, 0.9);
  const age =
    /^(?:i am|i'm)\s+(\d{1,2})(?:\s+years old|\s+now)?\b(?!\s*(?:km|kg|m|cm|minutes|hours|%))/i.exec(expanded)?.[1] ??
    /^at (\d{2}),? i\b/i.exec(expanded)?.[1];
  if (age && Number(age) > 4 && Number(age) < 110)
    return fact(
      'user.age',
      age,
      'How old is the user?',
      userSays(expanded).replace(/^The user is (\d+)(?![\d\s]*years)/, 'The user is $1 years old'),
      0.85,
    );
  const home =
    /^(?:i|we)\s+(?:(?:just|recently)\s+)?(?:live|am based|are based|moved|have moved|moved into [\w\s]+? in|am living|are living|live and work)\s+(?:in|to)\s+([^,.;]+)/i.exec(
      expanded,
    )?.[1];
  if (home) return fact('user.home', home.trim(), 'Where does the user live?', userSays(expanded), 0.85);
  const from = /^(?:i am|i'm|we are|we're)\s+from\s+([A-Z][^,.;]+)/i.exec(expanded)?.[1];
  if (from) return fact('user.origin', from.trim(), 'Where is the user from?', userSays(expanded), 0.85);
  const job =
    /^i (?:work as|am working as|have worked as|have been working as)\s+(?:an?\s+)?([^,.;]+)/i.exec(expanded)?.[1] ??
    (JOBS_EN.test(expanded)
      ? /^i (?:have been|was)\s+(?:an?|the)\s+((?:[\w-]+\s+){0,4}?[\w-]+)\s+(?:at|in|for|with)\b/i.exec(expanded)?.[1]
      : undefined) ??
    /^i (?:teach|lecture in|practise|practice)\s+([^,.;]+)/i.exec(expanded)?.[0] ??
    (JOBS_EN.test(expanded)
      ? /^i am (?:an?|the)\s+((?:[\w-]+\s+){0,4}?[\w-]+)(?:\s+(?:at|in|for|with)\b.*)?$/i.exec(expanded)?.[1]
      : undefined);
  if (job && (JOBS_EN.test(job) || /^i (?:work as|teach)/i.test(expanded)))
    return fact('user.job', job.trim(), 'What does the user do for a living?', userSays(expanded), 0.85);
  const employer = /^i (?:work|am working) (?:at|for)\s+([^,.;]+)/i.exec(expanded)?.[1];
  if (employer) return fact('user.employer', employer.trim(), 'Where does the user work?', userSays(expanded), 0.85);
  return undefined;
}

function fact(key: string, answer: string, query: string, value: string, confidence: number): Finding {
  return { category: 'fact', key, answer, query, value: sentence(value), confidence };
}

function healthFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const condition = CONDITIONS_EN.exec(expanded)?.[1] ?? INJURIES_EN.exec(expanded)?.[0];
  if (!condition) return undefined;
  const owner = ownerOf(expanded, ctx);
  if (!owner.isUser && !/^(?:my|our)\b/i.test(expanded)) return undefined;
  if (!/^(?:i|my|we|our)\b/i.test(expanded) && !/\b(?:i|me|my)\b/i.test(expanded)) return undefined;
  return {
    category: 'fact',
    key: `${owner.key}.health.${slug(headWords(condition, 2))}`,
    answer: condition,
    query: owner.isUser
      ? 'What health conditions or injuries does the user have?'
      : `What health conditions does ${owner.name} have?`,
    value: sentence(`${userSays(expanded).replace(/[.]$/, '')}${dateNote(clause, ctx)}`),
    confidence: 0.85,
  };
}

function dietFrame(_clause: string, expanded: string): Finding | undefined {
  const diet = /^(?:i am|i'm|we are|we're)\s+(?:a\s+|strictly\s+|mostly\s+)?/i.test(expanded)
    ? DIETS_EN.exec(expanded)?.[1]
    : undefined;
  const avoids = /^(?:i|we)\s+(?:do not|don't|never|cannot|can't)\s+eat\s+([^,.;]+)/i.exec(expanded)?.[1];
  if (!diet && !avoids) return undefined;
  return {
    category: 'fact',
    key: diet ? 'user.diet' : `user.diet.avoids.${slug(avoids as string)}`,
    answer: diet ?? `no ${avoids}`,
    query: 'What are the user’s dietary restrictions?',
    value: userSays(expanded),
    confidence: 0.85,
  };
}

const MONEY =
  /(?:\b\d[\d,.]*\s?k?\s+(?:total\s+)?budget\b|[$€£¥]\s?\d[\d,.]*\s?(?:k|m)?|\b\d[\d,.]*\s?(?:k|m)?\s*(?:dollars|usd|euros?|eur|pounds|gbp|quid|rand|yen|yuan|rmb|francs|chf|kr|krona|kronor|sek|nok|aud|cad)\b|\b\d+k\b)/i;

function budgetFrame(_clause: string, expanded: string): Finding | undefined {
  if (!MONEY.test(expanded)) return undefined;
  if (
    !/\b(budget|max|maximum|under|up to|no more than|at most|cap|caps|capped|limit|spend|afford|target|targeting|rate|salary|earn|take home|costs?|rent|price|pay)\b/i.test(
      expanded,
    )
  )
    return undefined;
  const context =
    /\b(per|a|each)\s+(night|month|person|head|week|day|hour|year)\b/i.exec(expanded)?.[2] ??
    headWords(expanded.replace(MONEY, ' '), 2);
  let value = userSays(expanded);
  const changed = /^(?:please\s+)?(?:make|change|set)\s+(?:the|my|our)\s+(.+?)\s+(?:to\s+)?(\S+)\s+instead$/i.exec(
    expanded,
  );
  if (changed) {
    value = sentence(`The user changed their ${changed[1]} to ${changed[2]}`);
  } else if (!/^(?:i|we|my|our)\b/i.test(expanded)) {
    value = sentence(
      toThirdPerson(expanded, 'the user', true)
        .replace(/^(?:the\s+)?(total\s+)?budget\b/i, "The user's $1budget")
        .replace(/^max(?:imum)?\b/i, "The user's maximum budget is")
        .replace(/^(?:company policy|policy)\b/i, "The user's company policy")
        .replace(/^(?!The user)/, 'The user mentioned: '),
    );
  }
  return {
    category: 'fact',
    key: `constraint.budget.${slug(context)}`,
    answer: MONEY.exec(expanded)?.[0] ?? '',
    query: 'What budget or price limit did the user give?',
    value,
    confidence: 0.85,
  };
}

function preferenceFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const m =
    /^(?:i|we)\s+(?:really\s+|absolutely\s+|also\s+|just\s+|kind of\s+|still\s+)*(love|like|enjoy|adore|prefer|hate|dislike|detest|cannot stand|can't stand|am not a fan of|am a (?:big |huge )?fan of|am into|am really into|do not like|don't like|do not enjoy|don't enjoy|do not want|don't want|want)\s+(.+)$/i.exec(
      expanded,
    ) ??
    /^(.+?)\s+is my (?:favou?rite|go-to)\b.*$/i.exec(expanded) ??
    /^my favou?rite\s+(.+)$/i.exec(expanded);
  const wish =
    /^(.{4,80}?)\s+would be (?:amazing|great|perfect|ideal|nice|lovely|awesome|wonderful|fantastic|a dream)\b/i.exec(
      expanded,
    );
  if (!m && wish && !/^(?:it|that|this)\b/i.test(wish[1] as string)) {
    return {
      category: 'preference',
      key: `user.would_like.${slug(headWords(wish[1] as string, 3))}`,
      answer: wish[1] as string,
      query: 'What would the user like?',
      value: sentence(
        `The user would love ${toThirdPerson((wish[1] as string).replace(/^./, (c) => c.toLowerCase()))}`,
      ),
      confidence: 0.75,
    };
  }
  if (!m) return undefined;
  const verb = m.length > 2 ? (m[1] ?? '').toLowerCase() : 'favourite';
  const object = (m.length > 2 ? m[2] : m[1]) ?? '';
  if (/^(it|that|this|them|those|you|one|so|too|to know|help|to ask)\b/i.test(object) || DELIVERABLES_EN.test(object))
    return undefined;
  if (verb === 'want' && !/^(?:to\s+)?(?:\w+\s+)?(quartz|granite|something|a|an|the|to)\b/i.test(object))
    return undefined;
  const negative = /hate|dislike|detest|stand|not/.test(verb);
  if (verb === 'want' || /want/.test(verb)) {
    return {
      category: /^to\b/i.test(object) ? 'fact' : 'preference',
      key: `user.${negative ? 'does_not_want' : 'wants'}.${slug(headWords(object, 2))}`,
      answer: object,
      query: `What does the user want regarding ${headWords(object, 3)}?`,
      value: sentence(`${userSays(expanded).replace(/[.]$/, '')}${dateNote(clause, ctx)}`),
      confidence: 0.75,
    };
  }
  return {
    category: 'preference',
    key: `user.${negative ? 'dislikes' : 'likes'}.${slug(headWords(object, 2))}`,
    answer: object,
    query: negative ? 'What does the user dislike or avoid?' : 'What does the user like?',
    value: userSays(expanded),
    confidence: 0.8,
  };
}

function constraintFrame(_clause: string, expanded: string): Finding | undefined {
  const m =
    /^(?:the\s+|our\s+|my\s+|this\s+)?([\w\s-]{2,40}?)\s+(?:must|has to|have to|needs to|need to|should)\s+(?:be|have|fit|stay)\s+(.+)$/i.exec(
      expanded,
    );
  if (!m || /^(i|we|you|it|that)$/i.test((m[1] ?? '').trim())) return undefined;
  return {
    category: 'fact',
    key: `constraint.${slug(headWords(m[1] as string, 2))}`,
    answer: m[2] as string,
    query: `What requirement did the user set for ${headWords(m[1] as string, 3)}?`,
    value: sentence(`The user's requirement: ${toThirdPerson(expanded, 'the user', true)}`),
    confidence: 0.8,
  };
}

function commitmentFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const m =
    /^i (?:will|shall|am going to|promise to|promised to|have to|need to|must|plan to|am planning to|intend to)\s+(.+)$/i.exec(
      expanded,
    ) ?? /^(?:we|i) (?:will|are going to|need to|have to)\s+(.+)$/i.exec(expanded);
  if (!m) return undefined;
  const rest = m[1] as string;
  if (
    /^(?:go|leave|stop|think|check|see|try|be|let you know|get back|look into|answer that)\b/i.test(rest) &&
    !hasDate(rest, ctx)
  )
    return undefined;
  if (DELIVERABLES_EN.test(rest.replace(/^(?:get|have|find)\s+/i, ''))) return undefined;
  const dated = hasDate(expanded, ctx);
  if (!dated && !/\b(promise|need to|have to|must)\b/i.test(expanded)) return undefined;
  return {
    category: dated ? 'commitment' : 'todo',
    key: `commitment.${slug(headWords(rest, 3))}`,
    answer: rest,
    query: 'What has the user committed to or still needs to do, and by when?',
    value: sentence(`${userSays(expanded).replace(/[.]$/, '')}${dateNote(clause, ctx)}`),
    confidence: 0.8,
  };
}

function planFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const firstPerson = /^(?:i|we|my|our)\b/i.test(expanded);
  const future =
    /\b(?:going to|planning|plan to|will|moving|travelling|traveling|flying|visiting|signed up|getting married|hosting|organising|organizing|speaking at|launching|starting|start|trip|next|in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b/i.test(
      expanded,
    );
  const dated = hasDate(expanded, ctx);
  if (!dated || (!firstPerson && !/\b(is|are|starts?|starting|ends?|due|deadline)\b/i.test(expanded))) return undefined;
  // "starting October 5", "he starts on October 20": a fragment or an unresolved pronoun says nothing on its own.
  if (
    !firstPerson &&
    (/^(?:starting|from|until|by|on|in|at|he|she|they|it)\b/i.test(expanded) || expanded.split(/\s+/).length < 4)
  )
    return undefined;
  if (
    !firstPerson &&
    !future &&
    !/\b(deadline|due|starts?|starting|session|unit|exam|interview|launch|birthday|anniversary|wedding|appointment|surgery|closed)\b/i.test(
      expanded,
    )
  )
    return undefined;
  const moving = /\bmov(?:e|ing)\b/i.test(expanded);
  const trip = /\b(trip|travel|fly|flying|visit|holiday|vacation|going to [A-Z])\b/.test(expanded);
  const value = firstPerson
    ? userSays(expanded).replace(/[.]$/, '')
    : `The user mentioned that ${expanded
        .replace(/\bmy\b/gi, 'their')
        .replace(/\bour\b/gi, 'their')
        .replace(/^./, (c) => c.toLowerCase())}`;
  return {
    category: 'fact',
    key: moving
      ? 'plan.move'
      : `plan.${slug(headWords(expanded.replace(/^(?:i|we|my|our)\s+(?:am|are|is|will|have)?\s*/i, ''), 2))}`,
    answer: expanded,
    // Each plan its own question: two plans never answer "the same question" (the write path would
    // take the later for an update of the earlier).
    query: moving
      ? 'Where and when is the user moving?'
      : trip
        ? 'Where and when is the user travelling?'
        : `When is the user's ${headWords(expanded.replace(/^(?:i|we|my|our)\s+(?:am|are|is|will|have|has)?\s*/i, ''), 3) || 'plan'}?`,
    value: sentence(`${value}${dateNote(clause, ctx)}`),
    confidence: 0.8,
  };
}

/**
 * "Dr. Weiss switched me from propranolol to topiramate", "we changed from Slack to Teams": a change
 * names what it replaces, so the write path can supersede the note that still says the old one.
 */
function changeFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  const m =
    /\b(?:switched|changed|moved|swapped)\s+(?:(?:me|us|him|her|them)\s+)?(?:over\s+)?from\s+(?:the\s+)?(.+?)\s+to\s+(.+?)(?=[,;.]|$)/i.exec(
      expanded,
    );
  if (!m || /^(?:it|that|this)$/i.test(m[1] as string)) return undefined;
  const from = (m[1] as string).trim();
  const to = (m[2] as string).trim();
  return {
    category: 'fact',
    key: `user.${slug(headWords(from, 2))}`,
    answer: to,
    query: `What does the user use now instead of ${headWords(from, 3)}?`,
    value: sentence(
      `${userSays(/^(?:i|we)\b/i.test(expanded) ? expanded : expanded.replace(/\b(?:me|us)\b/i, 'the user')).replace(/[.]$/, '')}${dateNote(clause, ctx)}`,
    ),
    confidence: 0.8,
    replaces: from,
  };
}

/**
 * What the user states about their world without naming themselves, when it carries a figure, a
 * date or a name ("Weddings are 40 percent of our revenue", "Bloomfield wants a minimum order of
 * 300 pounds", "First episode goes out on March 4", "Triggers so far are red wine, …"): a note
 * in the third person. Pronoun subjects, questions about the conversation and one-word clauses
 * say nothing on their own.
 */
function statedFrame(clause: string, expanded: string, { ctx }: ClauseContext): Finding | undefined {
  if (/^(?:i|we|my|our|you|your|it|this|that|these|those|there|here|he|she|they|what|which|who)\b/i.test(expanded))
    return undefined;
  if (HEDGES.test(expanded) || TRANSIENT.test(expanded) || expanded.split(/\s+/).length < 4) return undefined;
  const doc = nlp(expanded);
  // "has been late three times" (the subject is in the clause before), "14 was before his diet".
  if (!doc.has('#Verb') || doc.has('^(#Verb|#Auxiliary|#Copula|#Adverb|#Value|#Preposition|#Conjunction)'))
    return undefined;
  const figure = doc.has('#Value') || MONEY.test(expanded) || hasDate(expanded, ctx);
  const named = doc.match('#ProperNoun').not('^.').found;
  const listed = doc.has('^#Noun+ (so far)? (is|are|include|includes) #Noun') && /,|\band\b/.test(expanded);
  if (!figure && !named && !listed) return undefined;
  const subject = doc.match('#Noun+').first().text('normal') || headWords(expanded, 2);
  return {
    category: 'fact',
    key: `said.${slug(subject)}`,
    answer: expanded,
    query: `What did the user say about ${subject}?`,
    value: sentence(
      `The user mentioned that ${expanded
        .replace(/\bmy\b/gi, 'their')
        .replace(/\bour\b/gi, 'their')
        .replace(/\bme\b/gi, 'them')
        .replace(/^(?:The|A|An|This|These|Those)\b/, (w) => w.toLowerCase())}${dateNote(clause, ctx)}`,
    ),
    confidence: 0.65,
  };
}

function firstPersonFrame(clause: string, rawExpanded: string, { ctx }: ClauseContext): Finding | undefined {
  // "The new house is in Headingley": the user's new things are the user's.
  const expanded = rawExpanded.replace(/^the new\b/i, 'our new');
  if (!/^(?:i|we|my|our)\b/i.test(expanded) || HEDGES.test(expanded) || TRANSIENT.test(expanded)) return undefined;
  const words = expanded.split(/\s+/);
  if (words.length < 3) return undefined;
  // "I need a gift idea", "I want help with…": a request to the assistant, not a fact.
  if (/^(?:i|we)\s+(?:really\s+)?(?:need|want|would like|am looking for|are looking for)\s+/i.test(expanded)) {
    const object = expanded.replace(
      /^(?:i|we)\s+(?:really\s+)?(?:need|want|would like|am looking for|are looking for)\s+/i,
      '',
    );
    if (
      DELIVERABLES_EN.test(object) ||
      /^(?:to\s+)?(?:help|know|ask|plan|find|figure|prepare|draft|write)\b/i.test(object)
    )
      return undefined;
  }
  if (/^(?:i|we)\s+(?:have|got)\s+(?:a|one|another)\s+(?:question|problem|issue|idea)\b/i.test(expanded))
    return undefined;
  const doc = nlp(expanded);
  const content = doc.match('(#Noun|#Value|#Adjective)').not('#Pronoun').length;
  if (content === 0) return undefined;
  return {
    category: 'fact',
    key: `user.${slug(headWords(expanded.replace(/^(?:i|we|my|our)\s+/i, ''), 3))}`,
    answer: expanded,
    query: `What did the user say about ${headWords(expanded.replace(/^(?:i|we|my|our)\s+(?:am|are|have|has|do|did|was|were)?\s*/i, ''), 3) || 'themselves'}?`,
    value: sentence(`${userSays(expanded).replace(/[.]$/, '')}${dateNote(clause, ctx)}`),
    confidence: 0.65,
  };
}
