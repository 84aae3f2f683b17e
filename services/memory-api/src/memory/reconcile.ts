import { cosine } from '@hindsight/embedding';
import { type MemoryRecord, searchableText } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { PROFILE_CATEGORY } from '../users/profile.ts';
import { analyse, type Relation, type StatementInput } from './contradiction.ts';
import { mergeInto, saidLater, supersede, supersededOnArrival, superseding } from './revisions.ts';
import { attributeCues, CHANGED_VALUE, hasContentWords } from './statements.ts';
import type { MemoryUpdate } from './store-port.ts';
import type { WriteDeps } from './write.ts';

/**
 * What became of a new semantic memory: its own (`new`), folded into an existing one (`merged`),
 * replacing existing ones (`superseded`), or stored as history because a memory the user already
 * has says, later in conversation time, otherwise (`historical`, superseded on arrival by `by`).
 */
export type Reconciliation =
  | { kind: 'new' }
  | { kind: 'merged'; id: string }
  | { kind: 'superseded'; ids: string[] }
  | { kind: 'historical'; by: string };

/** Neighbours looked at per source (by meaning and by words). */
const NEIGHBOURS = 6;

/** Memories looked at for a single-valued attribute the new memory sets. */
const ATTRIBUTE_NEIGHBOURS = 12;

/** How many of a user's memories of one category a reversal looks through for its slot. */
const SLOT_SCAN = 1000;

/**
 * How many of a user's active semantic memories are read for an attribute that is often set
 * without any of its words: "I am 41" says an age, yet holds neither "age" nor "years old" for
 * the keyword search to find it by, nor does "I am 42 now" come near it by meaning (the numbers
 * are different words). The store lists in write order, so these are the owner's first ones.
 */
const UNWORDED_ATTRIBUTE_SCAN = 200;
// A club one supports is named, not described: "I support Leeds United" and "switched allegiance to
// Bradford City" share no word and lie far apart in meaning.
const UNWORDED_ATTRIBUTES: ReadonlySet<string> = new Set(['age', 'supports']);
/**
 * Attributes whose end is news for any statement of them, however it was worded: "made redundant"
 * or "retired" ends "I'm a warehouse supervisor at the Amazon depot", which holds no word of work.
 * Rare enough (a change to nothing said) to read the owner's memories for.
 */
const ENDED_ATTRIBUTES: ReadonlySet<string> = new Set(['employer', 'workplace', 'occupation']);

/** Ids of the owner's active semantic memories, when the new memory sets an attribute often left unworded. */
async function candidatesForUnwordedAttribute(
  deps: WriteDeps,
  record: MemoryRecord,
  frames: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<string[]> {
  const unworded =
    [...UNWORDED_ATTRIBUTES].some((name) => frames.has(name)) ||
    [...ENDED_ATTRIBUTES].some((name) => frames.get(name)?.has(CHANGED_VALUE));
  if (!unworded) return [];
  return deps.store.listIds(
    { tenant: record.tenant, userId: record.user_id, layers: ['semantic'], statuses: ['active'] },
    UNWORDED_ATTRIBUTE_SCAN,
  );
}

/** A memory as the contradiction judge reads it: text, the question it answers, the extractor's slot and answers. */
export function statementOf(record: Pick<MemoryRecord, 'content' | 'query' | 'metadata'>): StatementInput {
  const text = (field: string) => {
    const value = record.metadata[field];
    return typeof value === 'string' ? value : null;
  };
  return {
    content: record.content,
    query: record.query,
    key: text('key'),
    answer: text('answer'),
    replaces: text('replaces'),
  };
}

/**
 * The active memories of the slot a reversal takes back (same user, category and `metadata.key`),
 * however far they lie from it by meaning or words: "go with Foyles" names neither "Daunt Books"
 * nor anything else the standing decision says, and a user with many decisions may have a dozen
 * nearer ones. Only a reversal (`metadata.replaces`) looks, so ordinary writes cost nothing more.
 */
async function sameSlot(deps: WriteDeps, record: MemoryRecord): Promise<string[]> {
  const { key, replaces } = record.metadata;
  if (typeof key !== 'string' || key === '' || typeof replaces !== 'string' || replaces === '') return [];
  const filter = {
    tenant: record.tenant,
    userId: record.user_id,
    layers: ['semantic'] as const,
    categories: [record.category],
    statuses: ['active'] as const,
  };
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let seen = 0; seen < SLOT_SCAN; ) {
    const page = await deps.store.list(filter, Math.min(200, SLOT_SCAN - seen), cursor);
    seen += page.items.length;
    for (const memory of page.items) if (memory.metadata.key === key) ids.push(memory.id);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return ids;
}

/** "Switch to X", "go with X instead", "use X from now on", "换成/改用/换到 X": a decision naming only the new value. */
const SWITCH_TO =
  /\b(?:switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing))\s+(?:\w+\s+){0,3}?to\b|\bgo(?:ing)?\s+with\b.*\binstead\b|\b(?:use|using)\b.*\bfrom now on\b|换成|换到|改用|改成|改为/iu;

const SWITCHED_FROM_STANDING = 'rule:switched-from-standing-value';

/** How many leading terms of a standing value the decision taken back must name ("蓝天" of "蓝天乳业"). */
const VALUE_HEAD = 2;

/**
 * The standing values a switch decision replaces though it names only the new one: "还是换成牧场直供吧"
 * takes back "先不换，跟蓝天谈一下", and the fact "鲜奶供应商是蓝天乳业" is the value that decision
 * kept. A `<key> is <value>` fact (not a decision) is replaced when the decision the switch
 * supersedes names the head of its value and the switch does not name it again; a fact about
 * anything else, or a switch that supersedes no decision, leaves every fact alone.
 */
async function valuesSwitchedFrom(
  deps: WriteDeps,
  record: MemoryRecord,
  newer: ReturnType<typeof analyse>,
  takenBack: readonly MemoryRecord[],
  updates: Map<string, MemoryUpdate>,
): Promise<MemoryRecord[]> {
  const decisions = takenBack.filter((old) => old.category === 'decision');
  if (record.category !== 'decision' || decisions.length === 0 || !SWITCH_TO.test(record.content)) return [];
  const scope = {
    tenant: record.tenant,
    userId: record.user_id,
    layers: ['semantic'] as const,
    statuses: ['active'] as const,
  };
  const found = await Promise.all(
    decisions.map((d) => deps.store.keywordSearch(scope, keywordTokens(d.content), NEIGHBOURS)),
  );
  const ids = [...new Set(found.flat().map((n) => n.id))].filter(
    (id) => id !== record.id && !updates.has(id) && !takenBack.some((old) => old.id === id),
  );
  if (ids.length === 0) return [];
  const keptBy = decisions.map((d) => analyse(statementOf(d)).topic);
  return (await deps.store.getMany(record.tenant, ids)).filter((old) => {
    if (old.status !== 'active' || old.category === 'decision' || old.category === PROFILE_CATEGORY) return false;
    if (saidLater(old, record)) return false;
    const value = analyse(statementOf(old)).keyValue?.value;
    if (!value) return false;
    const head = [...value].slice(0, VALUE_HEAD);
    if (head.length < Math.min(VALUE_HEAD, value.size) || head.some((t) => newer.topic.has(t))) return false;
    return keptBy.some((topic) => head.every((t) => topic.has(t)));
  });
}

/** The longest `query` a memory takes (as `/store` accepts it). */
const MAX_QUESTIONS = 500;

/**
 * A switch that replaced a standing value answers that value's question too: "还是换成牧场直供吧"
 * is what "现在的鲜奶供应商是谁？" should find, though it names no supplier. Its `query` (searched
 * with its content) gains the questions of the values it replaced; its content stays as said.
 */
function inheritQuestions(record: MemoryRecord, replaced: readonly MemoryRecord[]): void {
  const questions = [record.query, ...replaced.map((old) => old.query)].filter(
    (q): q is string => typeof q === 'string' && q !== '',
  );
  if (questions.length > (record.query ? 1 : 0)) {
    record.query = [...new Set(questions)].join(' ').slice(0, MAX_QUESTIONS);
  }
}

/** A memory written earlier in the same batch, not in the store yet: reconciled like a stored one. */
export interface PendingMemory {
  record: MemoryRecord;
  vector: Float32Array;
}

/**
 * A new semantic memory against what the user already has. Candidates are the nearest active
 * memories by meaning (cosine ≥ CONTRADICTION_THRESHOLD) and by words (BM25), and the memories
 * written earlier in the same batch (so a batch decides as the same writes one at a time would);
 * the judge relates each to the new one. A neighbour it contradicts is superseded (kept, marked,
 * linked) — unless that neighbour was said later in conversation time (`occurred_at`): then the new
 * memory is the outdated one and is stored superseded by it. Else the closest one it refines, if a
 * near-duplicate (cosine ≥ MERGE_THRESHOLD), absorbs it (merge; the wording said later is kept, the
 * other goes into history). Text without content words is never reconciled: it becomes its own
 * memory. Every merge and supersede records the judge's reason. Nothing is deleted.
 */
export async function reconcileSemantic(
  deps: WriteDeps,
  record: MemoryRecord,
  vector: Float32Array,
  updates: Map<string, MemoryUpdate>,
  pending: readonly PendingMemory[],
  at: string,
): Promise<Reconciliation> {
  if (!hasContentWords(record.content)) return { kind: 'new' };
  const { settings } = deps;
  const scope = {
    tenant: record.tenant,
    userId: record.user_id,
    layers: ['semantic'] as const,
    statuses: ['active'] as const,
  };
  const newer = statementOf(record);
  const newerStatement = analyse(newer);
  const attribute = attributeCues(newerStatement);
  const [dense, keyword, sameAttribute, unworded] = await Promise.all([
    deps.store.vectorSearch(scope, vector, NEIGHBOURS),
    deps.store.keywordSearch(scope, keywordTokens(searchableText(record)), NEIGHBOURS),
    attribute ? deps.store.keywordSearch(scope, keywordTokens(attribute.cues), ATTRIBUTE_NEIGHBOURS) : [],
    attribute ? candidatesForUnwordedAttribute(deps, record, newerStatement.frames) : [],
  ]);
  const similarity = new Map(
    dense.filter((n) => n.score >= settings.contradictionThreshold).map((n) => [n.id, n.score]),
  );
  const wordsOnly = [...new Set([...keyword.map((n) => n.id), ...(await sameSlot(deps, record))])].filter(
    (id) => !similarity.has(id),
  );
  // Memories that may set one of the new memory's single-valued attributes ("lives in Denver" for
  // "moved to Austin"), found by the attribute's own words; kept only if they do.
  const attributeOnly = new Set(
    [...sameAttribute.map((n) => n.id), ...unworded].filter((id) => !similarity.has(id) && !wordsOnly.includes(id)),
  );
  const unscored = [...wordsOnly, ...attributeOnly];
  if (unscored.length > 0) {
    for (const [id, score] of await deps.store.similarities(record.tenant, unscored, vector)) similarity.set(id, score);
  }
  const ids = [...new Set([...similarity.keys(), ...unscored])].filter((id) => !updates.has(id));
  const stored = (ids.length > 0 ? await deps.store.getMany(record.tenant, ids) : []).filter(
    (old) => !attributeOnly.has(old.id) || attribute?.setBy(analyse(statementOf(old))),
  );
  // Earlier items of this batch (same owner), changed in place before they are inserted.
  const earlier = pending.filter((p) => p.record.user_id === record.user_id && p.record.status === 'active');
  for (const p of earlier) similarity.set(p.record.id, cosine(p.vector, vector));
  const candidates: Array<{ old: MemoryRecord; apply: (next: MemoryRecord, vector?: Float32Array) => void }> = [
    ...stored.map((old) => ({
      old,
      apply: (next: MemoryRecord, nextVector?: Float32Array) =>
        updates.set(next.id, nextVector ? { record: next, vector: nextVector } : { record: next }),
    })),
    ...earlier.map((p) => ({
      old: p.record,
      apply: (next: MemoryRecord, nextVector?: Float32Array) => {
        Object.assign(p.record, next);
        if (nextVector) p.vector = nextVector;
      },
    })),
  ]
    .filter(({ old }) => old.category !== PROFILE_CATEGORY && old.status === 'active')
    .sort((a, b) => (similarity.get(b.old.id) ?? 0) - (similarity.get(a.old.id) ?? 0));
  if (candidates.length === 0) return { kind: 'new' };
  const relations = await Promise.all(candidates.map(({ old }) => deps.judge.relate(statementOf(old), newer)));

  const contradicted = candidates.flatMap((candidate, i) => {
    const relation = relations[i] as Relation;
    return relation.kind === 'contradicts' ? [{ ...candidate, reason: relation.reason }] : [];
  });
  // A statement older in conversation time than one it contradicts is history, not news: the
  // note a worker took from an earlier turn never replaces the correction the user made after it.
  const later = contradicted
    .filter(({ old }) => saidLater(old, record))
    .sort((a, b) => Date.parse(b.old.occurred_at) - Date.parse(a.old.occurred_at))[0];
  if (later) {
    const { id, occurred_at } = later.old;
    Object.assign(record, supersededOnArrival(record, { id, occurred_at, reason: later.reason }, at));
    return { kind: 'historical', by: id };
  }
  if (contradicted.length > 0) {
    const standingValues = await valuesSwitchedFrom(
      deps,
      record,
      newerStatement,
      contradicted.map(({ old }) => old),
      updates,
    );
    for (const old of standingValues) {
      contradicted.push({
        old,
        apply: (next: MemoryRecord) => updates.set(next.id, { record: next }),
        reason: SWITCHED_FROM_STANDING,
      });
    }
    for (const { old, apply, reason } of contradicted) {
      apply(supersede(old, { id: record.id, occurred_at: record.occurred_at, reason }, at));
    }
    const ids = contradicted.map(({ old }) => old.id);
    Object.assign(
      record,
      superseding(
        record,
        ids,
        contradicted.map(({ reason }) => reason),
        at,
      ),
    );
    inheritQuestions(record, standingValues);
    return { kind: 'superseded', ids };
  }

  const mergeable = candidates.findIndex(
    ({ old }, i) => relations[i]?.kind === 'refines' && (similarity.get(old.id) ?? 0) >= settings.mergeThreshold,
  );
  const chosen = candidates[mergeable];
  if (!chosen) return { kind: 'new' };
  const merged = mergeInto(chosen.old, record, (relations[mergeable] as Relation).reason, at);
  // The vector follows the text: a merge that kept the later wording keeps its vector.
  chosen.apply(merged, merged.content_hash === record.content_hash ? vector : undefined);
  return { kind: 'merged', id: merged.id };
}
