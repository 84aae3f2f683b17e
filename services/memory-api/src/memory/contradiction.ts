import { placesNest } from './places.ts';
import {
  ALTERNATIVE_FRAMES,
  analyseStatement,
  CALLED_OFF,
  CHANGED_VALUE,
  habitChangedZh,
  NO_VALUE,
  PARTNERS,
  PLANNED,
  partnerNamed,
  relativeNamedFirst,
  type Statement,
} from './statements.ts';

/**
 * A memory as the judge sees it: its text and, when an extractor wrote it, the question it answers,
 * its slot (`key`, subject + attribute), the slot's short `answer`, and the answer it takes back
 * (`replaces`, for a reversal).
 */
export interface StatementInput {
  content: string;
  query?: string | null;
  key?: string | null;
  answer?: string | null;
  replaces?: string | null;
}

/**
 * How a newer statement relates to an older one of the same user:
 * - `contradicts`: same subject and attribute, incompatible value — the older is superseded;
 * - `refines`: same subject and attribute, compatible (a restatement or added detail) — the newer
 *   may be merged into the older when they are near-duplicates;
 * - `unrelated`: about something else (or nothing) — both stay.
 * `reason` names the rule (or the judge) that decided; it goes into the history entry.
 */
export type Relation =
  | { kind: 'contradicts'; reason: string }
  | { kind: 'refines'; reason: string }
  | { kind: 'unrelated'; reason: string };

/**
 * Decides how a newer statement relates to an older one about the same user. Implementations:
 * rule-based (below, offline) and LLM-based (adapters/llm/contradiction-judge.ts).
 */
export interface ContradictionJudge {
  readonly name: string;
  relate(older: StatementInput, newer: StatementInput): Promise<Relation>;
}

/** "also likes red tea": one more, not instead. */
const ADDITIVE = /\b(?:too|also|as well|in addition|as much)\b|也|还/iu;

const unrelated = (reason: string): Relation => ({ kind: 'unrelated', reason });
const contradicts = (reason: string): Relation => ({ kind: 'contradicts', reason: `rule:${reason}` });
const refines = (reason: string): Relation => ({ kind: 'refines', reason: `rule:${reason}` });

/**
 * Rules, English and Chinese. A contradiction needs the same subject and the same attribute with an
 * incompatible value: the same extractor key with another value, the same "<key> is <value>" key,
 * the same single-valued attribute (where one lives, works, what one's job, diet or marital status
 * is) with another value, a change away from what the older one says ("moved from Berlin", "sold
 * his Toyota"), or a denial of the same topic ("no longer vegetarian", "不再吃素了"). Two facts
 * of the same sentence shape about different attributes share no topic and are never related;
 * text without content words is related to nothing.
 */
export class RuleContradictionJudge implements ContradictionJudge {
  readonly name = 'rules';

  async relate(older: StatementInput, newer: StatementInput): Promise<Relation> {
    return relateStatements(analyse(older), analyse(newer));
  }
}

export function analyse(input: StatementInput): Statement {
  return analyseStatement(input.content, {
    key: input.key ?? null,
    query: input.query ?? null,
    answer: input.answer ?? null,
    replaces: input.replaces ?? null,
  });
}

/**
 * The deterministic part of every judge: what is settled without reading the meaning. (Two
 * different extractor keys settle nothing: a slot id can carry polarity, `user.likes.jazz` and
 * `user.dislikes.jazz_anymore`, so the text decides.)
 */
export function relationBeyondDoubt(older: Statement, said: Statement): Relation | undefined {
  const newer = readAsTheNamedRelative(older, said);
  if (older.contentFree || newer.contentFree) return unrelated('content-free');
  // "My boyfriend is called Ian" → "I broke up with Ian": the owner ended what the partner statement says.
  // (said as written: "Hannah and I called it a day" is the owner's break-up, not Hannah's)
  if (partnerEnded(older, said)) return contradicts('partner-ended');
  if (older.relative !== newer.relative && heldByTheSameRelative(older, newer).length === 0) {
    return unrelated('different-subject');
  }
  // "Drives a grey Hilux." (a note about the owner, who goes unnamed) and "Saoirse drives a Leaf.": someone else.
  if (subjectless(older.text) !== subjectless(newer.text) && (namedSubject(older.text) || namedSubject(newer.text))) {
    return unrelated('different-subject');
  }
  // A reversal names what it takes back: "decided on Paris" replaces "Rome".
  if (newer.replaces && (newer.replaces === older.answer || contains(older.topic, termsOfAnswer(newer.replaces)))) {
    return contradicts('replaces-answer');
  }
  // The same slot with another answer; the same answer may still be denied, which the text tells.
  if (older.key && older.key === newer.key && older.answer && newer.answer && older.answer !== newer.answer) {
    return contradicts('same-key');
  }
  return undefined;
}

export function relateStatements(older: Statement, said: Statement): Relation {
  const newer = readAsTheNamedRelative(older, said);
  const settled = relationBeyondDoubt(older, said);
  if (settled) return settled;
  // "我们打算五一去西藏自驾" → "五一西藏自驾黄了": the plan is off (most of what it said, said again);
  // "We're going to Crete in June" → "Crete's not happening anymore": the plan named, and off.
  if (CALLED_OFF.test(newer.text) && older.topic.size > 0 && !CALLED_OFF.test(older.text)) {
    const common = overlap(older.topic, newer.topic);
    if (older.tentative && common >= Math.max(2, (2 * older.topic.size) / 3)) return contradicts('plan-called-off');
    if ((older.tentative || PLANNED.test(older.text)) && namesTheSamePlan(older.text, newer.text)) {
      return contradicts('plan-called-off');
    }
  }
  if (newer.tentative) return unrelated('tentative');
  // "has a son who is 12" → "My son is 13 now": the same relative's attribute, whoever the sentence's subject.
  const held = heldByTheSameRelative(older, newer);
  if (older.relative !== newer.relative || held.length > 0) return compareFrames(older, newer, held);
  if (providerEnded(older, newer)) return contradicts('provider-ended');
  if (namedActivityDroppedZh(older, newer)) return contradicts('dropped');

  if (older.key && older.key === newer.key) return compareValues(older, newer, older.topic, newer.topic, 'same-key');

  if (older.keyValue && newer.keyValue) {
    if (!sameTerms(older.keyValue.key, newer.keyValue.key)) return unrelated('different-key');
    return compareValues(older, newer, older.keyValue.value, newer.keyValue.value, 'same-key');
  }
  if (contactChanged(older, newer, EMAIL)) return contradicts('email-changed');
  if (contactChanged(older, newer, PHONE)) return contradicts('number-changed');
  if (corrected(older, newer)) return contradicts('corrected');

  const both = [...older.frames.keys()].filter((name) => newer.frames.has(name));
  const sameAlternative = (name: string) =>
    (older.frames.get(name) as ReadonlySet<string>).has(
      [...(newer.frames.get(name) as ReadonlySet<string>)][0] as string,
    );
  // "uses Windows" → "switched to a Mac", "drinks alcohol" → "is teetotal": another of the known alternatives.
  const otherAlternative = both.find((name) => ALTERNATIVE_FRAMES.has(name) && !sameAlternative(name));
  if (otherAlternative) return contradicts(`same-attribute:${otherAlternative}`);
  // The same alternative settles nothing: "drinks wine" and "no longer drinks wine" both name drinking.
  const shared = both.filter(
    (name) => !ALTERNATIVE_FRAMES.has(name) && !(name === 'residence' && homeBesideMove(older, newer)),
  );
  if (shared.length > 0) return compareFrames(older, newer, shared);

  // "has a corgi called Biscuit" → "Biscuit died in May": what the owner kept is gone.
  if (older.keeps && contains(older.topic, newer.died)) return contradicts('died');
  // "moved from Berlin", "sold his Toyota": what the newer left behind is what the older is about.
  const left = overlap(newer.from, older.topic);
  if (left > 0 && (left === newer.from.size || left === older.topic.size)) return contradicts('changed-from');

  // "早饭喝牛奶" → "早饭改喝豆浆了": the same habit, done with something else now.
  if (habitChangedZh(older.text, newer.text)) return contradicts('habit-changed');

  const jaccard = similarity(older.topic, newer.topic);
  const common = overlap(older.topic, newer.topic);
  const contained = common > 0 && common === Math.min(older.topic.size, newer.topic.size);
  if (deniedIn(older, newer.topic) !== deniedIn(newer, older.topic)) {
    // "I don't go to the gym on Fridays anymore" says nothing against "I go three times a week".
    if (deniesOnlyAnOccasion(newer, older)) return unrelated('denial-of-an-occasion');
    const sameTopic =
      jaccard >= 0.5 ||
      (contained && Math.max(older.topic.size, newer.topic.size) <= 3) ||
      clauseSaysAll(newer, older.topic) ||
      clauseSaysAll(older, newer.topic) ||
      denialCovers(newer, older.topic) ||
      denialCovers(older, newer.topic) ||
      stoppedWithin(newer, older.topic);
    return sameTopic ? contradicts('negation') : unrelated('different-topic');
  }
  if (older.query && older.query === newer.query && newer.changed && jaccard < 1) {
    return contradicts('same-question-changed');
  }
  // "I'm assistant manager at Lidl" → "made store manager at Lidl, so I'm not the assistant any more":
  // the same words again, and a changed clause denies part of the older.
  if (contained && jaccard >= 1 / 3) {
    return stoppedWithin(newer, older.topic) ? contradicts('stopped-within') : refines('same-topic');
  }
  // "prefers window seats" → "now prefers aisle seats": a new choice of the same thing.
  if (older.prefers && newer.prefers && newer.changed && common > 0 && !ADDITIVE.test(newer.text)) {
    return contradicts('preference-changed');
  }
  return unrelated('different-topic');
}

/**
 * "My brother Sam works as a firefighter" → "Sam has retrained and is a paramedic now": a newer
 * statement that begins with the name the older gave its relative is read as said of that relative.
 */
function readAsTheNamedRelative(older: Statement, newer: Statement): Statement {
  if (older.relative === null || newer.relative !== null) return newer;
  const named = relativeNamedFirst(older.text);
  if (!named || !new RegExp(`^${named.name}(?=[\\s,'’])`, 'u').test(newer.text.trim())) return newer;
  return analyseStatement(`${named.phrase}${newer.text.trim().slice(named.name.length)}`, {
    key: newer.key,
    query: newer.query,
    answer: newer.answer,
    replaces: newer.replaces,
  });
}

/** Seasons and parts of the week: a job or a home of one is no other's ("夏天…当管家" and "冬天…当教练"). */
const SEASONS_ZH = /夏天|冬天|春天|秋天|夏季|冬季|春季|秋季|暑假|寒假|周末|工作日/gu;
const SEASONS_EN = /\b(?:summers?|winters?|spring|autumn|weekends?|weekdays?)\b/giu;

/** The seasons a statement names (each said once, in its singular). */
function seasonsOf(statement: Statement): Set<string> {
  const said = [...statement.text.matchAll(SEASONS_ZH), ...statement.text.matchAll(SEASONS_EN)];
  return new Set(said.map(([season]) => season.toLowerCase().replace(/s$/u, '').replace(/季$/u, '天')));
}

/** The verdict on the frames both statements set: a contradiction in any of them wins. */
function compareFrames(older: Statement, newer: Statement, names: readonly string[]): Relation {
  // Both said of a season, and of different ones: both hold.
  const [then, now] = [seasonsOf(older), seasonsOf(newer)];
  if (then.size > 0 && now.size > 0 && ![...now].some((s) => then.has(s))) return unrelated('different-season');
  const verdicts = names.map((name) => {
    const [was, now] = [older.frames.get(name) as ReadonlySet<string>, newer.frames.get(name) as ReadonlySet<string>];
    // "lives in Spain" and "moved to Madrid": one place in the other, both true, and neither said
    // in the other's words (never merged: "lives in England" would replace "lives in Leeds").
    if (name.split('@')[0] === 'residence' && placesNest(was, now)) return unrelated('place-within-place');
    // "我爸一天抽一包烟" → "我爸把烟戒了": another of the known alternatives, said of the same relative.
    if (ALTERNATIVE_FRAMES.has(name.split('@')[0] as string)) {
      return [...now].every((v) => was.has(v))
        ? refines(`same-attribute:${name}`)
        : contradicts(`same-attribute:${name}`);
    }
    // "is a firefighter" → "is a watch manager at Speke fire station": a rank within the job (its first word).
    if (name === 'occupation' && rankWithin(was, newer.topic)) return refines('same-attribute:occupation:rank');
    // "is a retired teacher" → "retired in 2019": the retirement said again.
    if (name === 'occupation' && was.has('retir') && now.has(CHANGED_VALUE))
      return refines('same-attribute:occupation:retired');
    // "is engaged to Connor" → "called off the engagement and split up": the break-up is the new state, not its denial.
    if (name === 'marital' && newer.ended && ![...now].every((v) => was.has(v)))
      return contradicts('same-attribute:marital');
    // "I'm single" → "Marcus proposed and I said yes": one marital state at a time.
    if (name === 'marital' && ![...now].some((v) => was.has(v))) return contradicts('same-attribute:marital');
    return compareValues(older, newer, was, now, `same-attribute:${name}`);
  });
  return verdicts.find((v) => v.kind === 'contradicts') ?? verdicts[0] ?? unrelated('different-subject');
}

/** An older job word that is a compound beginning with a word of the newer statement: "firefight(er)" and "fire station" (not "teacher" and "teaching"). */
function rankWithin(job: ReadonlySet<string>, topic: ReadonlySet<string>): boolean {
  return [...job].some((j) => [...topic].some((t) => t.length >= 4 && j.length - t.length >= 4 && j.startsWith(t)));
}

/** Frames of one relative ("age@son") that both statements set. */
function heldByTheSameRelative(older: Statement, newer: Statement): string[] {
  return [...older.frames.keys()].filter((name) => name.includes('@') && newer.frames.has(name));
}

/**
 * A move and a description of the home, which are both true: "moved to England in 2012" and "lives
 * in a terraced house in Headingley", "从长沙搬到了深圳" and "住在南山区的一套两居室里". The home
 * after a move is where the move led, unless said as a change ("now lives in a flat in Leeds"); a
 * move after the home is another one, unless dated (a life story: "moved to England in 2012") or
 * to a place the home is in. A move from where the older one says ("moved from Berlin to Madrid")
 * is a change either way.
 */
function homeBesideMove(older: Statement, newer: Statement): boolean {
  const [was, now] = [older.residence, newer.residence];
  if (!was || !now || was.moved === now.moved || overlap(newer.from, older.topic) > 0) return false;
  if (was.moved) return now.home && !newer.changed;
  const destination = newer.frames.get('residence') ?? new Set<string>();
  return was.home && (now.dated || contains(older.topic, destination));
}

/**
 * Two values of the same attribute: a value denied in one and affirmed in the other, or a value
 * that is not the old one (nor contains it), contradicts; one that restates or extends it refines.
 * Polarity is read in the clause that holds the value: in "quit teaching and is now a lawyer" the
 * occupation "lawyer" is affirmed.
 */
function compareValues(
  olderStatement: Statement,
  newerStatement: Statement,
  older: ReadonlySet<string>,
  newer: ReadonlySet<string>,
  rule: string,
): Relation {
  // "changed jobs" after "works at Google": the attribute moved on, whatever to.
  if (newer.has(CHANGED_VALUE)) return older.has(CHANGED_VALUE) ? refines(rule) : contradicts(`${rule}:changed`);
  if (older.has(CHANGED_VALUE)) return unrelated('earlier-change');
  // "我没有车" → "买了一辆特斯拉": one has one now (or none any more), whatever either clause denies.
  if (older.has(NO_VALUE) || newer.has(NO_VALUE)) {
    return older.has(NO_VALUE) === newer.has(NO_VALUE) ? refines(rule) : contradicts(`${rule}:none`);
  }
  if (deniedIn(olderStatement, older) !== deniedIn(newerStatement, newer)) {
    // "doesn't live in Madrid" says nothing against "lives in Berlin".
    return overlap(older, newer) > 0 ? contradicts(`${rule}:negated`) : unrelated('different-value');
  }
  const keepsOld = older.size > 0 && [...older].every((t) => newer.has(t));
  return keepsOld ? refines(rule) : contradicts(rule);
}

/**
 * Whether `statement` denies, as read in its clause most about `terms`: "likes oolong tea, no
 * sugar" affirms the tea although a later clause denies something.
 */
function deniedIn(statement: Statement, terms: ReadonlySet<string>): boolean {
  let best = statement.clauses[0];
  let bestOverlap = -1;
  for (const clause of statement.clauses) {
    const shared = overlap(clause.topic, terms);
    if (shared > bestOverlap) {
      best = clause;
      bestOverlap = shared;
    }
  }
  return best?.negative ?? false;
}

/**
 * One clause of `statement` says all of `topic` and little more: "isn't allergic to peanuts after
 * all, the test came back negative" denies "is allergic to peanuts" in its first clause.
 */
function clauseSaysAll(statement: Statement, topic: ReadonlySet<string>): boolean {
  return statement.clauses.some((clause) => contains(clause.topic, topic) && similarity(clause.topic, topic) >= 0.5);
}

/**
 * What one clause of `statement` denies is said by `topic`, and is most of it: "不打篮球了" denies
 * "喜欢打篮球" although the clause also says why ("膝盖受伤以后就…"); "I've given up coffee"
 * denies "I drink three coffees a day" (how many is not what the statement is about).
 */
function denialCovers(statement: Statement, topic: ReadonlySet<string>): boolean {
  const said = new Set([...topic].filter((t) => !/^\d+(?:[.,]\d+)?$/.test(t)));
  return statement.clauses.some(
    (clause) => clause.negative && contains(said, clause.denied) && similarity(clause.denied, said) >= 0.5,
  );
}

/**
 * Whether every denial of `newer` is said of an occasion the older statement does not name ("on
 * Fridays", "周末"): a habit changed for one day, not given up.
 */
function deniesOnlyAnOccasion(newer: Statement, older: Statement): boolean {
  const olderOccasions = new Set(older.clauses.flatMap((clause) => [...clause.when]));
  const denials = newer.clauses.filter((clause) => clause.negative);
  return (
    denials.length > 0 &&
    denials.every((clause) => clause.when.size > 0 && [...clause.when].some((w) => !olderOccasions.has(w)))
  );
}

/**
 * A change that denies part of what `topic` says: "I don't play Sunday league anymore" after "I
 * play in a Sunday league football team", "现在不上班了" after "在工地上班" (the older says more
 * than the denial names, so the denial does not cover most of it).
 */
function stoppedWithin(statement: Statement, topic: ReadonlySet<string>): boolean {
  // The whole clause within the older topic: "小王其实对青霉素不过敏" denies an allergy to something else.
  return (
    statement.changed &&
    statement.clauses.some((clause) => clause.negative && clause.denied.size > 0 && contains(topic, clause.topic))
  );
}

/** A way to reach the owner: how its values are found in a text, the kinds it comes in, and how a change is said. */
interface Contact {
  values: (text: string) => string[];
  kinds: RegExp;
  changeSaid: RegExp;
}

/** An email address. */
const EMAIL: Contact = {
  values: (text) => text.match(/[\p{L}\d._%+-]+@[\p{L}\d-]+(?:\.[\p{L}\d-]+)+/gu) ?? [],
  kinds: /\b(?:work|personal|private|school|uni|university|business|office|home)\b/giu,
  changeSaid:
    /\bnew\b|\bfrom\s+now\s+on\b|\binstead\b|\bswitched\b|\bchanged\b|\bno\s+longer\b|\bany\s?more\b|换了|改成|改用|以后用|不用了/iu,
};

/** A phone number: seven digits or more, in groups ("07700 900412", "138 0013 4567", "+44 7700-900877"). */
const PHONE: Contact = {
  values: (text) =>
    (text.match(/\+?\d[\d\s-]{5,}\d/gu) ?? []).map((n) => n.replace(/\D/gu, '')).filter((n) => n.length >= 7),
  kinds: /\b(?:work|office|home|landline|mobile|cell|personal|business)\b|座机|办公室|单位/giu,
  changeSaid:
    /\bnew\b|\bnow\b|\bfrom\s+now\s+on\b|\binstead\b|\bchanged\b|\bno\s+longer\b|\bblocked\b|\bold\s+(?:one|number|sim)\b|新号|换了|改成|以后打|停机|不用了/iu,
};

/**
 * "My personal email is dana.kovac@outlook.com" → "Use dana.k@proton.me from now on", "My mobile
 * number is 07700 900412" → "I'm on 07700 900877 now": another address or number, said as a change,
 * for the same kind (a work address and a personal one both hold).
 */
function contactChanged(older: Statement, newer: Statement, contact: Contact): boolean {
  const [was, now] = [contact.values(older.text), contact.values(newer.text)];
  if (was.length === 0 || now.length === 0 || now.some((value) => was.includes(value))) return false;
  const kinds = (text: string): Set<string> =>
    new Set([...text.matchAll(contact.kinds)].map(([kind]) => kind.toLowerCase()));
  const [then, said] = [kinds(older.text), kinds(newer.text)];
  if (then.size > 0 && said.size > 0 && ![...said].some((kind) => then.has(kind))) return false;
  return contact.changeSaid.test(newer.text);
}

/** "actually it's Tuesdays not Thursdays for pottery", "是周二不是周四": a correction naming what the older said. */
const CORRECTION_EN = /\b([\p{L}\d:]+)\s*,?\s+not\s+(?:on\s+|at\s+|in\s+)?([\p{L}\d:]+)\b/iu;
const CORRECTION_ZH =
  /是(\p{Script=Han}{1,6}?)[，,]?(?:不是|而不是)(\p{Script=Han}{1,6}?)(?=[，,。；;！!]|$)|不是(\p{Script=Han}{1,6}?)[，,]?(?:是|而是)(\p{Script=Han}{1,6}?)(?=[，,。；;！!]|$)/u;
/** A correction said as one: "actually", "I got mixed up", "其实", "记错了". */
const CORRECTING =
  /\bactually\b|\bsorry\b|\bmixed\s+up\b|\bgot\s+(?:it|that)\s+wrong\b|\bmy\s+mistake\b|\bcorrection\b|\bi\s+meant?\b|其实|实际上|搞错|记错|说错|弄错|更正|纠正/iu;
/** Words before "not" that are no value: "covers tuition but not rent", "turned out not to be". */
const NOT_A_VALUE_EN =
  /^(?:but|and|or|out|is|are|was|were|it|its|it['’]s|do|does|did|have|has|had|can|could|would|should|will|just|still|also|certainly|definitely|probably)$/iu;
function corrected(older: Statement, newer: Statement): boolean {
  if (!CORRECTING.test(newer.text)) return false;
  const english = CORRECTION_EN.exec(newer.text);
  if (english?.[1] && english[2] && !NOT_A_VALUE_EN.test(english[1])) {
    // Day names are no topic terms: the words themselves are looked for ("Thursday evenings").
    const said = (word: string) => new RegExp(`(?<![\\p{L}])${word.replace(/s$/iu, '')}`, 'iu').test(older.text);
    return said(english[2]) && !said(english[1]) && overlap(older.topic, newer.topic) > 0;
  }
  const chinese = CORRECTION_ZH.exec(newer.text);
  const wrong = chinese?.[2] ?? chinese?.[3];
  const right = chinese?.[1] ?? chinese?.[4];
  return wrong !== undefined && right !== undefined && older.text.includes(wrong) && !older.text.includes(right);
}

/** Someone who serves the owner: "My dentist is Dr Patel at Smile Dental", "my landlord is Mr Hughes". */
const PROVIDER_IS_EN =
  /^\s*(?:my|our|his|her|their|the\s+user['’]s)\s+(?:\p{Ll}+\s+)?(dentist|doctor|gp|physio|physiotherapist|therapist|counsellor|counselor|psychiatrist|optician|vet|hairdresser|barber|landlord|landlady|boss|manager|supervisor|tutor|teacher|coach|trainer|instructor|mechanic|accountant|lawyer|solicitor|cleaner|nanny|childminder|midwife|consultant)\s+(?:is|was)\s+(.+)/iu;
const TITLES_EN: ReadonlySet<string> = new Set(['Dr', 'Mr', 'Mrs', 'Ms', 'Miss', 'Prof', 'Professor', 'Doctor']);
const ENDED_AFTER_EN =
  '\\s+(?:(?:has|had|just|finally|recently|now|sadly|actually)\\s+)*(?:retired|left|moved\\s+away|passed\\s+away|died|quit|went\\s+private|closed(?:\\s+down)?|shut\\s+down|stopped\\s+(?:practi[sc]ing|working|teaching)|is\\s+leaving|has\\s+gone)\\b';

/** "My dentist is Dr Patel …" → "Turns out Dr Patel retired": the one who served the owner is gone. */
function providerEnded(older: Statement, newer: Statement): boolean {
  const provider = PROVIDER_IS_EN.exec(older.text);
  if (provider === null) return false;
  const value = provider[2] ?? '';
  // Its names, and the runs of them ("Smile Dental"): either may be what ended.
  const names = [
    ...(value.match(/\p{Lu}[\p{L}'’-]+/gu) ?? []),
    ...(value.match(/\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)+/gu) ?? []),
  ].filter((name) => !TITLES_EN.has(name));
  const ended = [...names, `my\\s+(?:old\\s+)?${provider[1]}`].map(
    (name) => new RegExp(`(?<![\\p{L}])${name}${ENDED_AFTER_EN}`, 'iu'),
  );
  return ended.some((pattern) => pattern.test(newer.text));
}

/**
 * "我在新东方上雅思课" → "雅思不考了，改成报日语N2的班": a clause that puts what it gives up first
 * and then denies it names the older's activity outright.
 */
const DROPPED_FIRST_ZH =
  /^(\p{Script=Han}{2,6}?)(?:我|也|就|早就|已经|都|现在)*(?:不再|不|没再|没有再|没)再?[去考学上练玩打吃喝做用看]?了/u;
function namedActivityDroppedZh(older: Statement, newer: Statement): boolean {
  if (older.clauses.some((clause) => clause.negative)) return false;
  return newer.text.split(/[，,。；;！!]/u).some((clause) => {
    const dropped = DROPPED_FIRST_ZH.exec(clause.trim())?.[1];
    return dropped !== undefined && older.text.includes(dropped);
  });
}

/** Words a plan's two statements share that name no plan. */
const NOT_A_PLAN_NAME = /^(?:I|We|The|My|Our|It|Its|It['’]s|我们|今年|明年|我的|计划|打算|准备|全家)$/u;

/** Whether two texts name the same place or event: a capitalised word ("Crete", "Manchester") or two Han characters (国庆). */
function namesTheSamePlan(older: string, newer: string): boolean {
  const names = (text: string): Set<string> =>
    new Set((text.match(/(?<![\p{L}])\p{Lu}[\p{L}'’-]{2,}/gu) ?? []).map((name) => name.replace(/['’]s$/u, '')));
  const now = names(newer);
  if ([...names(older)].some((name) => now.has(name) && !NOT_A_PLAN_NAME.test(name))) return true;
  for (const run of older.match(/\p{Script=Han}{2,}/gu) ?? []) {
    for (let at = 0; at + 2 <= run.length; at++) {
      const pair = run.slice(at, at + 2);
      if (newer.includes(pair) && !NOT_A_PLAN_NAME.test(pair)) return true;
    }
  }
  return false;
}

/** A partner statement ("Omar's girlfriend is Lena", "我男朋友叫小李") and the owner's break-up with them. */
function partnerEnded(older: Statement, newer: Statement): boolean {
  if (newer.relative !== null || !newer.ended) return false;
  // "我跟男朋友阿杰住在一起" → "我跟阿杰分手了": the owner's statement named the partner the owner left.
  const named = older.relative === null ? partnerNamed(older.text) : null;
  if (named !== null) return mentionsName(newer.text, named);
  if (older.relative === null || !PARTNERS.has(older.relative)) return false;
  // "My boyfriend is called Liam" → "Liam and I split up": the partner's name, wherever it stands.
  const names = older.text.match(/(?<=\S\s+)\p{Lu}[\p{L}'’-]+/gu) ?? [];
  return (
    overlap(older.topic, newer.topic) > 0 ||
    newer.text.includes(older.relative) ||
    names.some((name) => mentionsName(newer.text, name))
  );
}

/** A name said in a text: a Latin one as a word of its own, a Chinese one anywhere (words are not spaced). */
function mentionsName(text: string, name: string): boolean {
  if (/\p{Script=Han}/u.test(name)) return text.includes(name);
  return new RegExp(`(?<![\\p{L}])${name}(?![\\p{L}])`, 'u').test(text);
}

/** A note that starts with its verb, its subject (the owner) unsaid: "Drives a grey 2018 Toyota Hilux." */
function subjectless(text: string): boolean {
  return /^\s*(?:Drives|Works|Lives|Has|Owns|Keeps|Takes|Plays|Goes|Speaks|Rides|Runs|Studies|Teaches|Is|Was|Moved|Married|Divorced|Retired|Uses|Eats|Drinks|Smokes|Prefers|Likes|Loves|Hates)\b/u.test(
    text,
  );
}

/** A statement whose subject is a name: "Saoirse drives an electric Nissan Leaf." */
function namedSubject(text: string): boolean {
  return /^\s*\p{Lu}[\p{Ll}'’-]+(?:\s+\p{Lu}[\p{Ll}'’-]+)?\s+(?:drives|works|lives|has|owns|keeps|takes|plays|goes|is|was|moved|married|uses|eats|drinks|smokes|prefers|likes|loves|hates|rides|runs|studies|teaches)\b/u.test(
    text,
  );
}

function contains(whole: ReadonlySet<string>, part: ReadonlySet<string>): boolean {
  return part.size > 0 && [...part].every((t) => whole.has(t));
}

function termsOfAnswer(answer: string): Set<string> {
  return analyseStatement(answer).topic as Set<string>;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared;
}

function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const shared = overlap(a, b);
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

function sameTerms(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return similarity(a, b) >= 2 / 3;
}
