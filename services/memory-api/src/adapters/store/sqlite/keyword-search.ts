import { KEYWORD_TOKENIZER_VERSION } from '@hindsight/text';
import type { Statement } from 'better-sqlite3';
import type { Candidate, SearchScope } from '../../../memory/store-port.ts';
import {
  CONTEXT_MARK,
  type CountedKeywordMatch,
  contextTermPrefix,
  type KeywordRanking,
  type KeywordScorer,
  keywordScorer,
  ownerTermPrefix,
  rankCountedKeywordMatches,
} from '../keywords.ts';
import { type TurnContextWindow, windowLabel } from '../turn-context.ts';
import { BY_ROWID_CHECKED, BY_ROWID_LIST, filterToSql, IN_JSON_LIST } from './filter-sql.ts';
import {
  ENTRY_SEPARATOR,
  type EntryBlock,
  type EntryForm,
  type HeldEntries,
  type HeldQuery,
  KeywordEntryCache,
} from './keyword-cache.ts';

/**
 * Keyword terms: tokenizer version + layout (scoped tokens in a contentless index, each entry's
 * terms beside it, turn context); a change rebuilds them on open.
 */
export const keywordIndexVersion = (window: TurnContextWindow) =>
  `${KEYWORD_TOKENIZER_VERSION}/scoped-terms+entry-terms/${windowLabel(window)}`;

/**
 * The keyword tables (schema 10): `memory_keywords`, an FTS5 index of owner-scoped tokens that keeps
 * no copy of them (contentless), its vocabulary, and `memory_keyword_terms`, each entry's terms
 * without the owner's prefix (context terms behind `CONTEXT_MARK`), which a search reads to count
 * a match's query terms and length: ~150 characters per memory where the scoped tokens took ~500.
 * Since schema 11 an entry's key is its owner's number (`keyword_owners.id`) × 2³⁶ + the memory's
 * rowid (`entryKey`), so one owner's entries are one contiguous range of the table: a search reads
 * a few pages for its matches' terms instead of one page per match.
 * An entry leaves the index by FTS5's 'delete' command given the tokens it was written with (from
 * its terms), which with secure-delete on takes them out of the index's pages at once; a
 * contentless_delete table would only mark the row deleted and keep its tokens until a merge.
 */
export const KEYWORD_TABLES_DEFINITION = `
  CREATE VIRTUAL TABLE memory_keywords USING fts5(
    terms, content = '', tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE memory_keywords_vocab USING fts5vocab(memory_keywords, 'row');
  CREATE TABLE memory_keyword_terms (rowid INTEGER PRIMARY KEY, terms TEXT NOT NULL);
`;

/** A memory's keyword entry: its own terms and its neighbouring turns' terms (`keywordTokens` terms). */
export interface KeywordEntry {
  own: readonly string[];
  context: readonly string[];
}

/**
 * Each owner's keyword statistics, kept by `SqliteKeywordIndex` in the transaction that writes the
 * owner's entries: how many entries (memories) they hold and how many own and context terms those
 * entries hold in all. A row goes when its owner's last memory does (an erased user leaves none).
 */
export const KEYWORD_OWNERS_DEFINITION = `
  CREATE TABLE IF NOT EXISTS keyword_owners (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant TEXT NOT NULL,
    user_id TEXT NOT NULL,
    documents INTEGER NOT NULL,
    own_terms INTEGER NOT NULL,
    context_terms INTEGER NOT NULL,
    writes INTEGER NOT NULL,
    UNIQUE (tenant, user_id)
  )`;

type Sql = (source: string) => Statement;

/**
 * The key of a memory's entry in `memory_keyword_terms`, in SQL: owner number `ownerSql` × 2³⁶ +
 * the memory's rowid `rowidSql` (rowids stay below 2³⁶: vectors.ts keys by them the same way).
 */
export const entryKey = (ownerSql: string, rowidSql: string) => `${ownerSql} * 68719476736 + ${rowidSql}`;

/** The owner a keyword entry belongs to (a memory row's columns). */
export interface KeywordOwner {
  tenant: string;
  user_id: string;
}

const MAX_QUERY_TERMS = 48;
/** Keyword candidates rescored per requested result, and at least this many (a window's size). */
const RESCORE_FACTOR = 4;
const MIN_RESCORED = 100;
/** The widest window of keyword matches filtered in one search. */
const MAX_KEYWORD_WINDOW = 6400;
/** A search whose query terms hold at most this many postings reads them all (see `search`). */
const WHOLE_READ_POSTINGS = 512;
/** The first step of a search reads the rarest query terms' postings together up to this many. */
const FIRST_STEP_POSTINGS = 256;
/** A search reads whole postings of its rarer terms up to this many in all (see `search`). */
const MAX_READ_POSTINGS = 2048;
/**
 * Vocabulary counts of tokens with at least this many postings are kept between searches (FTS5
 * counts a token's postings by walking them: ~5 ms for a term in 90,000 memories of one owner),
 * for as long as their owner's entries are unchanged; for this many owners at most.
 */
const CACHED_POSTINGS = 1024;
const CACHED_OWNERS = 64;

/** A token's row of the FTS5 vocabulary: entries holding it, and its occurrences in all. */
interface TokenCount {
  term: string;
  doc: number;
  cnt: number;
}

/** A query term as the index holds it for one owner. */
interface IndexedTerm {
  term: string;
  /** Its own and context tokens that have postings. */
  tokens: string[];
  /** Entries holding either token (an entry holding both counts twice). */
  postings: number;
  /** Owner's memories holding it as their own term (the BM25 document frequency). */
  documentFrequency: number;
  /** The most it can weigh in one entry: own occurrences + context weight × context occurrences. */
  maxFrequency: number;
}

/**
 * The SQLite side of keyword search: the FTS5 index `memory_keywords` of owner-scoped tokens
 * (`s<owner>term` for a memory's own terms, `c<owner>term` for its neighbouring turns' terms,
 * written by the store and the turn index through `put`/`remove`), each owner's statistics beside
 * it, and BM25 over one owner's memories. Writes run inside the caller's transaction.
 */
export class SqliteKeywordIndex {
  /**
   * Counts of common tokens per owner, valid while the owner's statistics row is the one they were
   * read under (its id, never reused, and its `writes`, moved by every change of their entries).
   */
  private readonly vocabulary = new Map<string, { version: string; tokens: Map<string, TokenCount> }>();
  /** Small owners' entries held in memory (keyword-cache.ts). */
  private readonly entries: KeywordEntryCache;

  constructor(
    private readonly sql: Sql,
    private readonly ranking: KeywordRanking,
  ) {
    this.entries = new KeywordEntryCache(ranking.contextWeight);
  }

  /**
   * Writes a memory's entry, replacing the one it had. `fresh`: the row was inserted in this
   * transaction, so it has none yet. A memory keeps its owner across updates (the store refuses
   * one that changes it, `OwnerChangeError`): its old tokens are rebuilt with `owner`. An entry
   * whose terms are unchanged (a status, confidence or tags edit) is left as it is.
   */
  put(rowid: bigint, owner: KeywordOwner, entry: KeywordEntry, fresh = false): void {
    let documents = 1;
    let own = entry.own.length;
    let context = entry.context.length;
    const terms = [...entry.own, ...entry.context.map((t) => CONTEXT_MARK + t)].join(' ');
    if (!fresh) {
      const previous = this.entryTerms(rowid, owner);
      if (previous === terms) return;
      if (previous !== undefined) {
        this.unindex(rowid, owner, previous);
        const before = entrySize(previous);
        documents -= 1;
        own -= before.own;
        context -= before.context;
      }
    }
    this.sql('INSERT INTO memory_keywords (rowid, terms) VALUES (?, ?)').run(rowid, scopedTokens(terms, owner));
    const ownerNumber = this.count(owner, documents, own, context);
    this.sql(`INSERT OR REPLACE INTO memory_keyword_terms (rowid, terms) VALUES (${entryKey('?', '?')}, ?)`).run(
      ownerNumber,
      rowid,
      terms,
    );
  }

  /** Removes a memory's entry (a deleted memory). */
  remove(rowid: bigint, owner: KeywordOwner): void {
    const previous = this.entryTerms(rowid, owner);
    if (previous === undefined) return;
    this.unindex(rowid, owner, previous);
    this.sql(
      `DELETE FROM memory_keyword_terms WHERE rowid = (SELECT ${entryKey('id', '?')} FROM keyword_owners WHERE tenant = ? AND user_id = ?)`,
    ).run(rowid, owner.tenant, owner.user_id);
    const before = entrySize(previous);
    this.count(owner, -1, -before.own, -before.context);
  }

  /** The terms of a memory's entry, undefined when it has none. */
  private entryTerms(rowid: bigint, owner: KeywordOwner): string | undefined {
    return this.sql(
      `SELECT t.terms FROM keyword_owners o CROSS JOIN memory_keyword_terms t ON t.rowid = ${entryKey('o.id', '?')}
       WHERE o.tenant = ? AND o.user_id = ?`,
    )
      .pluck()
      .get(rowid, owner.tenant, owner.user_id) as string | undefined;
  }

  /** Takes an entry's tokens out of the FTS5 index: `terms`, what `memory_keyword_terms` holds for it. */
  private unindex(rowid: bigint, owner: KeywordOwner, terms: string): void {
    this.sql("INSERT INTO memory_keywords (memory_keywords, rowid, terms) VALUES ('delete', ?, ?)").run(
      rowid,
      scopedTokens(terms, owner),
    );
  }

  /** Drops every entry and every owner's statistics (a rebuild of the index follows). */
  clear(): void {
    this.sql("INSERT INTO memory_keywords (memory_keywords) VALUES ('delete-all')").run();
    this.sql('DELETE FROM memory_keyword_terms').run();
    this.sql('DELETE FROM keyword_owners').run();
  }

  /**
   * BM25 over one owner's memories, with that owner's statistics (document count, document
   * frequency) as a BM25 over their memories alone would rank, the `k` best.
   *
   * When the query's terms hold few postings (`WHOLE_READ_POSTINGS`), every match is read and
   * ranked against the matches' average length, as `rankCountedKeywordMatches` ranks. Otherwise the
   * postings are read rarest term first (MaxScore) and every match is ranked against the owner's
   * average length, so a match's score does not depend on which others were read: after each step
   * the matches read are scored on every query term, and the search stops once the terms not read
   * yet could not lift an unread memory above the k-th score found (`KeywordScorer.ceiling`).
   * Common terms carry little weight, so for most queries their postings are never read, and the
   * answer is what reading every posting would answer. When the rarer terms alone already hold
   * more than `MAX_READ_POSTINGS` postings, the terms left (the common ones) contribute their
   * newest matches, a window of them, instead of all.
   */
  search(scope: SearchScope, queryTerms: readonly string[], k: number): Candidate[] {
    const unique = [...new Set(queryTerms)].slice(0, MAX_QUERY_TERMS);
    if (unique.length === 0 || k <= 0) return [];
    const owner = this.sql(
      'SELECT id, documents, own_terms, context_terms, writes FROM keyword_owners WHERE tenant = ? AND user_id = ?',
    ).get(scope.tenant, scope.userId) as
      | { id: number; documents: number; own_terms: number; context_terms: number; writes: number }
      | undefined;
    const ownerKey = `${scope.tenant}\u001f${scope.userId}`;
    if (!owner || owner.documents <= 0) {
      this.entries.drop(ownerKey);
      return [];
    }
    const { contextWeight } = this.ranking;
    const ownPrefix = ownerTermPrefix(scope.tenant, scope.userId);
    const contextPrefix = contextTermPrefix(scope.tenant, scope.userId);
    const tokens = new Map<string, { term: string; context: boolean }>();
    for (const term of unique) {
      tokens.set(ownPrefix + term, { term, context: false });
      tokens.set(contextPrefix + term, { term, context: true });
    }
    const held = this.entries.entries(ownerKey, owner, {
      entriesAfter: (after) => {
        const block = this.sql(
          `SELECT json_group_array(rowid) AS rowids, CAST(group_concat(terms, char(${ENTRY_SEPARATOR.charCodeAt(0)})) AS BLOB) AS terms FROM (
             SELECT rowid - ${entryKey('@owner', '0')} AS rowid, terms FROM memory_keyword_terms
             WHERE rowid > ${entryKey('@owner', '@after')} AND rowid < ${entryKey('(@owner + 1)', '0')} ORDER BY rowid)`,
        ).get({ owner: owner.id, after }) as { rowids: string; terms: Uint8Array | null };
        return {
          rowids: JSON.parse(block.rowids) as number[],
          terms: block.terms ?? new Uint8Array(0),
        } satisfies EntryBlock;
      },
    });
    const reader = new MatchReader(this.sql, scope, owner.id, unique, contextWeight, held);
    // Plain query terms among plain held entries: their postings counted from the entries.
    const postings = held?.plain && unique.every((term) => PLAIN_TERM.test(term)) ? reader.heldPostings() : undefined;
    const index = new PostingSource(this.sql, tokens, postings);
    const counts = this.counts(ownerKey, `${owner.id}:${owner.writes}`, tokens, index);
    const indexed = this.terms(tokens, counts, contextWeight);
    if (indexed.length === 0) return [];
    const frequency = new Map(indexed.map((t) => [t.term, t.documentFrequency]));
    if (indexed.reduce((sum, t) => sum + t.postings, 0) <= WHOLE_READ_POSTINGS) {
      const documentFrequency = (term: string) => frequency.get(term) ?? 0;
      if (held) {
        // Counted from the held entries, ranked, and checked against the filters best first as far
        // as the k best need: a check reads the memory's row (a random page each), so checking every
        // match first was most of the search (~0.7 ms of a 1,000-memory owner's). The matches'
        // average length is then that of every match, filtered or not.
        const counted = reader.count(index.matching(indexed, 'all'));
        const ranked = rankCountedKeywordMatches(
          unique,
          counted,
          { documents: owner.documents, documentFrequency },
          counted.length,
          this.ranking,
        );
        return reader.passingBestFirst(ranked, k);
      }
      const matches = reader.read(index.matching(indexed, 'all'));
      return rankCountedKeywordMatches(
        unique,
        matches,
        { documents: owner.documents, documentFrequency },
        k,
        this.ranking,
      );
    }
    const scorer = keywordScorer(
      unique,
      {
        documents: owner.documents,
        documentFrequency: (term) => frequency.get(term) ?? 0,
        averageLength: (owner.own_terms + contextWeight * owner.context_terms) / owner.documents,
      },
      this.ranking,
    );
    if (!scorer) return [];
    const order = indexed.sort((a, b) => scorer.weight(b.term) - scorer.weight(a.term) || a.postings - b.postings);

    const scored = new ScoredMatches(reader, scorer);
    let next = 0;
    let read = 0;
    while (next < order.length) {
      const step = [order[next] as IndexedTerm];
      let postings = step[0]?.postings ?? 0;
      for (
        let after = order[next + step.length];
        after && postings + after.postings <= FIRST_STEP_POSTINGS && read === 0;
        after = order[next + step.length]
      ) {
        step.push(after);
        postings += after.postings;
      }
      if (read + postings > MAX_READ_POSTINGS) break;
      scored.add(index.matching(step, 'all'));
      read += postings;
      next += step.length;
      if (next < order.length && scored.reaches(k, scorer.ceiling(order.slice(next)))) return scored.best(k);
    }
    if (next < order.length) {
      // The terms left are common among the owner's memories: the newest memories holding all of
      // them (an unread memory scores most with all of them), then their newest matches, a window
      // each, widened while filters leave fewer than k.
      const left = order.slice(next);
      const first = Math.max(k * RESCORE_FACTOR, MIN_RESCORED);
      if (left.length > 1) scored.add(index.matching(left, first, 'every'));
      for (let window = first; ; window *= 4) {
        const rowids = index.matching(left, Math.min(window, MAX_KEYWORD_WINDOW));
        scored.add(rowids);
        if (scored.holds(k) || rowids.length < window || window >= MAX_KEYWORD_WINDOW) break;
      }
    }
    return scored.best(k);
  }

  /**
   * How many entries hold each of these tokens and how often (tokens without postings left out):
   * common tokens from the owner's cached counts while the owner's entries are unchanged, the rest
   * from one vocabulary read.
   */
  private counts(
    ownerKey: string,
    version: string,
    tokens: ReadonlyMap<string, unknown>,
    index: PostingSource,
  ): TokenCount[] {
    let cached = this.vocabulary.get(ownerKey);
    if (cached !== undefined && cached.version !== version) {
      this.vocabulary.delete(ownerKey);
      cached = undefined;
    }
    const counts: TokenCount[] = [];
    const unknown: string[] = [];
    for (const token of tokens.keys()) {
      const count = cached?.tokens.get(token);
      if (count) counts.push(count);
      else unknown.push(token);
    }
    if (unknown.length === 0) return counts;
    for (const count of index.counts(unknown)) {
      counts.push(count);
      if (count.doc < CACHED_POSTINGS) continue;
      if (!cached) {
        if (this.vocabulary.size >= CACHED_OWNERS) {
          const oldest = this.vocabulary.keys().next().value;
          if (oldest !== undefined) this.vocabulary.delete(oldest);
        }
        cached = { version, tokens: new Map() };
        this.vocabulary.set(ownerKey, cached);
      }
      cached.tokens.set(count.term, count);
    }
    return counts;
  }

  /** The query's terms that hold postings of this owner, from their tokens' counts. */
  private terms(
    tokens: ReadonlyMap<string, { term: string; context: boolean }>,
    counts: readonly TokenCount[],
    contextWeight: number,
  ): IndexedTerm[] {
    const terms = new Map<string, IndexedTerm>();
    for (const { term: token, doc, cnt } of counts) {
      const query = tokens.get(token);
      if (!query) continue;
      let entry = terms.get(query.term);
      if (!entry) {
        entry = { term: query.term, tokens: [], postings: 0, documentFrequency: 0, maxFrequency: 0 };
        terms.set(query.term, entry);
      }
      entry.tokens.push(token);
      entry.postings += doc;
      // One entry holds at most all the token's occurrences but one per other entry holding it.
      const most = cnt - doc + 1;
      if (query.context) entry.maxFrequency += contextWeight * most;
      else {
        entry.documentFrequency = doc;
        entry.maxFrequency += most;
      }
    }
    return [...terms.values()];
  }

  /**
   * Adds to an owner's statistics (its row made by its first entry); answers the owner's number.
   * A read and then a plain UPDATE or INSERT, not an upsert with RETURNING: SQLite runs such a
   * statement in a statement savepoint, and each savepoint makes FTS5 flush its pending entries to
   * a segment of their own, so a batch's entries were written (and merged again) one by one
   * (1,000 entries in one transaction, scratch: 8 data rows / 3.8 ms this way, 21 / 12.9 ms by upsert).
   */
  private count(owner: KeywordOwner, documents: number, own: number, context: number): number {
    const known = this.sql('SELECT id FROM keyword_owners WHERE tenant = ? AND user_id = ?')
      .pluck()
      .get(owner.tenant, owner.user_id) as number | undefined;
    if (known === undefined) {
      const added = this.sql(
        `INSERT INTO keyword_owners (tenant, user_id, documents, own_terms, context_terms, writes)
         VALUES (?, ?, ?, ?, ?, 1)`,
      ).run(owner.tenant, owner.user_id, documents, own, context);
      return Number(added.lastInsertRowid);
    }
    this.sql(
      `UPDATE keyword_owners SET documents = documents + ?, own_terms = own_terms + ?,
         context_terms = context_terms + ?, writes = writes + 1 WHERE id = ?`,
    ).run(documents, own, context, known);
    if (documents < 0) this.sql('DELETE FROM keyword_owners WHERE id = ? AND documents <= 0').run(known);
    return known;
  }
}

/** Query terms the held entries can count postings of (see `HeldEntries.plain`). */
const PLAIN_TERM = /^[a-z0-9]+$/;

/**
 * Where a search reads its query tokens' counts and the entries holding them: the FTS5 index, or
 * the postings the owner's held entries counted (`HeldEntries.postings`), which answer the same
 * (the index's vocabulary order, its rowid order).
 */
class PostingSource {
  constructor(
    private readonly sql: Sql,
    private readonly tokens: ReadonlyMap<string, { term: string; context: boolean }>,
    private readonly held: Map<string, { rowids: number[]; occurrences: number }> | undefined,
  ) {}

  /** How many entries hold each of these tokens and how often, those without postings left out, in token order. */
  counts(tokens: readonly string[]): TokenCount[] {
    if (!this.held) {
      return this.sql(`SELECT term, doc, cnt FROM memory_keywords_vocab WHERE term ${IN_JSON_LIST} AND doc > 0`).all(
        JSON.stringify(tokens),
      ) as TokenCount[];
    }
    const counts: TokenCount[] = [];
    for (const token of [...tokens].sort()) {
      const posting = this.posting(token);
      if (posting && posting.rowids.length > 0)
        counts.push({ term: token, doc: posting.rowids.length, cnt: posting.occurrences });
    }
    return counts;
  }

  /** Rowids of the entries holding any (or every) one of these terms: all of them, or the newest `limit`. */
  matching(terms: readonly IndexedTerm[], limit: number | 'all', holding: 'any' | 'every' = 'any'): number[] {
    if (!this.held) return this.matchingInIndex(terms, limit, holding);
    const holders = terms.map((t) => new Set(t.tokens.flatMap((token) => this.posting(token)?.rowids ?? [])));
    let rowids: number[];
    if (holding === 'any') rowids = [...new Set(holders.flatMap((set) => [...set]))];
    else rowids = [...(holders[0] ?? [])].filter((rowid) => holders.every((set) => set.has(rowid)));
    rowids.sort((a, b) => a - b);
    return limit === 'all' ? rowids : rowids.reverse().slice(0, limit);
  }

  private posting(token: string) {
    const query = this.tokens.get(token);
    return query && this.held?.get(query.context ? CONTEXT_MARK + query.term : query.term);
  }

  private matchingInIndex(terms: readonly IndexedTerm[], limit: number | 'all', holding: 'any' | 'every'): number[] {
    const term = (t: IndexedTerm) => `(${t.tokens.map((token) => `"${token.replaceAll('"', '""')}"`).join(' OR ')})`;
    const match = terms.map(term).join(holding === 'any' ? ' OR ' : ' AND ');
    const rows =
      limit === 'all'
        ? this.sql('SELECT rowid FROM memory_keywords WHERE memory_keywords MATCH ?').pluck().all(match)
        : this.sql('SELECT rowid FROM memory_keywords WHERE memory_keywords MATCH ? ORDER BY rowid DESC LIMIT ?')
            .pluck()
            .all(match, limit);
    return rows as number[];
  }
}

/**
 * Recounts every owner's statistics from the entries (migration 7, run on a store that had none):
 * one pass over the entries with their owners, read from the scoped tokens schema 7 kept in
 * `memory_keywords`, or from `memory_keyword_terms` in a file whose schema version was set back.
 */
export function countKeywordOwners(sql: Sql): void {
  sql('DELETE FROM keyword_owners').run();
  const termsTable = sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_keyword_terms'").get();
  const entries = sql(
    `SELECT m.tenant, m.user_id, k.terms FROM memories m JOIN ${termsTable ? 'memory_keyword_terms' : 'memory_keywords'} k ON k.rowid = m.rowid`,
  ).iterate() as IterableIterator<{ tenant: string; user_id: string; terms: string }>;
  const size = termsTable ? entrySize : scopedEntrySize;
  const owners = new Map<
    string,
    { tenant: string; user_id: string; documents: number; own: number; context: number }
  >();
  for (const { tenant, user_id, terms } of entries) {
    const key = `${tenant}\u001f${user_id}`;
    let owner = owners.get(key);
    if (!owner) {
      owner = { tenant, user_id, documents: 0, own: 0, context: 0 };
      owners.set(key, owner);
    }
    const { own, context } = size(terms);
    owner.documents += 1;
    owner.own += own;
    owner.context += context;
  }
  const insert = sql(
    'INSERT INTO keyword_owners (tenant, user_id, documents, own_terms, context_terms, writes) VALUES (?, ?, ?, ?, ?, 0)',
  );
  for (const o of owners.values()) insert.run(o.tenant, o.user_id, o.documents, o.own, o.context);
}

/**
 * An entry's owner-scoped tokens as the FTS5 index holds them, from its terms: `s<owner>term` for
 * its own terms, `c<owner>term` for those behind `CONTEXT_MARK`, in the same order (FTS5's 'delete'
 * must be given the tokens and positions the entry was written with).
 */
function scopedTokens(terms: string, owner: KeywordOwner): string {
  if (terms.length === 0) return '';
  const own = ownerTermPrefix(owner.tenant, owner.user_id);
  const context = contextTermPrefix(owner.tenant, owner.user_id);
  const mark = CONTEXT_MARK.charCodeAt(0);
  return terms
    .split(' ')
    .map((term) => (term.charCodeAt(0) === mark ? context + term.slice(1) : own + term))
    .join(' ');
}

/** How many own and context tokens a schema-7 entry holds (`s<owner>…` and `c<owner>…`, space-separated). */
function scopedEntrySize(terms: string): { own: number; context: number } {
  return tokenCounts(terms, 99 /* c */);
}

/** How many own and context terms an entry of `memory_keyword_terms` holds. */
function entrySize(terms: string): { own: number; context: number } {
  return tokenCounts(terms, CONTEXT_MARK.charCodeAt(0));
}

/** Space-separated tokens, and those of them starting with `contextCode`. */
function tokenCounts(terms: string, contextCode: number): { own: number; context: number } {
  if (terms.length === 0) return { own: 0, context: 0 };
  let tokens = 1;
  let context = terms.charCodeAt(0) === contextCode ? 1 : 0;
  for (let at = terms.indexOf(' '); at !== -1; at = terms.indexOf(' ', at + 1)) {
    tokens += 1;
    if (terms.charCodeAt(at + 1) === contextCode) context += 1;
  }
  return { own: tokens - context, context };
}

/**
 * Reads a search's matches by rowid, each once, with their terms counted: `read` the rows that
 * pass the search's filters (rows and terms together, from the file); `count` every match's terms
 * alone, whose rows `passingBestFirst` checks later, only for the matches that may reach the top k.
 * The terms come from the owner's entries held in memory (keyword-cache.ts) when the connection
 * holds them, from `memory_keyword_terms` otherwise.
 */
class MatchReader {
  private readonly seen = new Set<number>();
  private readonly rowsOf: Statement;
  private readonly termsOf: Statement;
  private readonly passingOf: Statement;
  private readonly params: unknown[];
  /** Query terms by their form in an entry: `term` (own) and `CONTEXT_MARK + term` (context). */
  private readonly wanted = new Map<string, EntryForm>();
  /** The lengths of the shortest and the longest form in `wanted`. */
  private readonly shortest: number;
  private readonly longest: number;
  /** The query's terms among the held entries' terms. */
  private readonly heldQuery: HeldQuery | undefined;

  constructor(
    sql: Sql,
    scope: SearchScope,
    private readonly ownerNumber: number,
    queryTerms: readonly string[],
    private readonly contextWeight: number,
    private readonly held: HeldEntries | undefined,
  ) {
    const { where, params } = filterToSql(scope);
    this.params = params;
    this.rowsOf = sql(
      `SELECT m.id, t.terms FROM ${BY_ROWID_LIST} CROSS JOIN memory_keyword_terms t ON t.rowid = ${entryKey('?', 'm.rowid')} WHERE ${where}`,
    );
    this.termsOf = sql(
      `SELECT listed.value AS rowid, t.terms FROM json_each(?) AS listed CROSS JOIN memory_keyword_terms t ON t.rowid = ${entryKey('?', 'listed.value')}`,
    );
    this.passingOf = sql(`SELECT m.rowid, m.id FROM ${BY_ROWID_CHECKED} WHERE ${where}`);
    for (const term of queryTerms) {
      this.wanted.set(term, { term, weight: 1 });
      this.wanted.set(CONTEXT_MARK + term, { term, weight: contextWeight });
    }
    const sizes = [...this.wanted.keys()].map((form) => form.length);
    this.shortest = Math.min(...sizes);
    this.longest = Math.max(...sizes);
    this.heldQuery = held?.queryForms(this.wanted);
  }

  /** The query terms' postings among the held entries (`HeldEntries.postings`). */
  heldPostings(): Map<string, { rowids: number[]; occurrences: number }> | undefined {
    return this.heldQuery && this.held?.postings(this.heldQuery);
  }

  /** The new matches among `rowids` that pass the search's filters, counted from the file (rows and terms in one read). */
  read(rowids: readonly number[]): CountedKeywordMatch[] {
    const unseen = this.unseen(rowids);
    if (unseen.length === 0) return [];
    const rows = this.rowsOf.all(JSON.stringify(unseen), this.ownerNumber, ...this.params) as Array<{
      id: string;
      terms: string;
    }>;
    return rows.map(({ id, terms }) => this.countTerms(id, terms));
  }

  /** The new matches among `rowids`, counted, filters not checked yet. */
  count(rowids: readonly number[]): Array<CountedKeywordMatch<number>> {
    const unseen = this.unseen(rowids);
    if (unseen.length === 0) return [];
    return this.held ? this.countHeld(unseen, (rowid) => rowid) : this.countFromFile(unseen, (rowid) => rowid);
  }

  /**
   * The first k of `ranked` (best first) whose memories pass the search's filters, checked a few
   * past what is still needed at a time, so only as many rows are read as the k best need.
   * `checked` keeps what was checked across calls: the id of a match that passes, undefined otherwise.
   */
  passingBestFirst(
    ranked: ReadonlyArray<{ id: number; score: number }>,
    k: number,
    checked: Map<number, string | undefined> = new Map(),
  ): Candidate[] {
    const best: Candidate[] = [];
    for (let at = 0, margin = CHECK_MARGIN; at < ranked.length && best.length < k; margin *= 2) {
      const end = Math.min(ranked.length, at + (k - best.length) + margin);
      const unchecked: number[] = [];
      for (let i = at; i < end; i++) {
        const { id: rowid } = ranked[i] as { id: number };
        if (!checked.has(rowid)) unchecked.push(rowid);
      }
      if (unchecked.length > 0) {
        const passing = this.passing(unchecked);
        for (const rowid of unchecked) checked.set(rowid, passing.get(rowid));
      }
      for (; at < end && best.length < k; at++) {
        const { id: rowid, score } = ranked[at] as { id: number; score: number };
        const id = checked.get(rowid);
        if (id !== undefined) best.push({ id, score });
      }
    }
    return best;
  }

  /** The ids of those of `rowids` whose memories pass the search's filters. */
  private passing(rowids: readonly number[]): Map<number, string> {
    const rows = this.passingOf.all(JSON.stringify(rowids), ...this.params) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map(({ rowid, id }) => [rowid, id]));
  }

  private unseen(rowids: readonly number[]): number[] {
    const unseen = rowids.filter((rowid) => !this.seen.has(rowid));
    for (const rowid of unseen) this.seen.add(rowid);
    return unseen;
  }

  /**
   * Matches counted from the held entries, in the order of `rowids`; one the connection does not
   * hold (written after the owner's entries were checked) from the file.
   */
  private countHeld<Id>(rowids: readonly number[], idOf: (rowid: number) => Id): Array<CountedKeywordMatch<Id>> {
    const held = this.held as HeldEntries;
    const query = this.heldQuery as HeldQuery;
    const counted = rowids.map((rowid) => held.countMatch(idOf(rowid), rowid, query));
    const missing = rowids.filter((_, i) => counted[i] === undefined);
    if (missing.length === 0) return counted as Array<CountedKeywordMatch<Id>>;
    const fromFile = new Map(this.countFromFile(missing, (rowid) => rowid).map((match) => [match.id, match]));
    const matches: Array<CountedKeywordMatch<Id>> = [];
    rowids.forEach((rowid, i) => {
      const match = counted[i];
      const read = match ? undefined : fromFile.get(rowid);
      if (match) matches.push(match);
      else if (read) matches.push({ id: idOf(rowid), frequencies: read.frequencies, length: read.length });
    });
    return matches;
  }

  /** Matches counted from their entries in the file, in the order of `rowids` (one without an entry left out). */
  private countFromFile<Id>(rowids: readonly number[], idOf: (rowid: number) => Id): Array<CountedKeywordMatch<Id>> {
    const rows = this.termsOf.all(JSON.stringify(rowids), this.ownerNumber) as Array<{ rowid: number; terms: string }>;
    return rows.map(({ rowid, terms }) => this.countTerms(idOf(rowid), terms));
  }

  /**
   * A match's query terms counted from its entry, as `rankKeywordMatches` counts them: context
   * terms weigh `contextWeight` in the frequencies and in the length. Built field by field (an
   * object spread costs microseconds per match on Node 20), and only tokens as long as a query
   * term's form are cut out of the entry and looked up.
   */
  private countTerms<Id>(id: Id, terms: string): CountedKeywordMatch<Id> {
    const frequencies = new Map<string, number>();
    let length = 0;
    const mark = CONTEXT_MARK.charCodeAt(0);
    for (let start = 0; start <= terms.length; ) {
      let end = terms.indexOf(' ', start);
      if (end === -1) end = terms.length;
      length += terms.charCodeAt(start) === mark ? this.contextWeight : 1;
      const size = end - start;
      if (size >= this.shortest && size <= this.longest) {
        const query = this.wanted.get(terms.slice(start, end));
        if (query) frequencies.set(query.term, (frequencies.get(query.term) ?? 0) + query.weight);
      }
      start = end + 1;
    }
    return { id, frequencies, length };
  }
}

/** Matches checked against the filters in one read beyond those the top k still needs. */
const CHECK_MARGIN = 8;

/**
 * The matches a stepwise search has read, scored on every query term as they are read; their
 * memories are checked against the search's filters best first, only as far as the top k needs.
 */
class ScoredMatches {
  private readonly kept: Array<{ id: number; score: number }> = [];
  private sorted = true;
  /** Matches checked against the filters: the id of one that passes, undefined otherwise. */
  private readonly checked = new Map<number, string | undefined>();

  constructor(
    private readonly reader: MatchReader,
    private readonly scorer: KeywordScorer,
  ) {}

  add(rowids: readonly number[]): void {
    for (const match of this.reader.count(rowids)) {
      const score = this.scorer.score(match);
      if (score > 0) {
        this.kept.push({ id: match.id, score });
        this.sorted = false;
      }
    }
  }

  /** Whether k of the matches read pass the filters. */
  holds(k: number): boolean {
    return this.best(k).length >= k;
  }

  /**
   * Whether k of the matches read that pass the filters score at least `score` (or `score` is 0).
   * The matches are checked only when k of them score that much before filtering.
   */
  reaches(k: number, score: number): boolean {
    // Nothing unread can score above 0, and a match scoring 0 is no match.
    if (score <= 0) return true;
    this.sort();
    if ((this.kept[k - 1]?.score ?? 0) < score) return false;
    const best = this.best(k);
    return best.length >= k && (best[k - 1]?.score ?? 0) >= score;
  }

  /** The k best matches read that pass the filters. */
  best(k: number): Candidate[] {
    this.sort();
    return this.reader.passingBestFirst(this.kept, k, this.checked);
  }

  private sort(): void {
    if (this.sorted) return;
    this.kept.sort((a, b) => b.score - a.score);
    this.sorted = true;
  }
}
