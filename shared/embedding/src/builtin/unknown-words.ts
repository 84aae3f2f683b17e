import type { WordTable } from './word-vectors/word-table.ts';

/** A known word that stands in for an unknown one, and its rank in the table. */
export interface StandIn {
  word: string;
  rank: number;
}

/**
 * Medicines by the suffix of their class (international non-proprietary names): "metformin",
 * "sertraline", "atorvastatin", "lisinopril" are rarely among the table's 100,000 words, yet say
 * what they are by how they end. Each stands in as the word "medication".
 */
const MEDICINE_SUFFIXES =
  /(?:pril|sartan|statin|olol|triptan|cillin|mycin|azole|prazole|oxetine|xetine|aline|formin|thyroxine|azepam|zepam|cycline|floxacin|vir|mab|tidine|dipine|profen|codone|morphine|semide|thiazide|gliptin|gliflozin|lukast|tadine|parin|dronate|sone|olone|asone)$/u;

/**
 * Chinese medicine names: a transliterated generic name by its class's ending (硝苯地平, 氨氯地平,
 * 塞来昔布, 沙丁胺醇, 二甲双胍, 非布司他) or a dosage form (缓释片, 胶囊, 口服液, 喷雾剂). The dictionary
 * knows few of them, so each stands in as 药物 ("medication").
 */
const MEDICINE_ZH =
  /(?:地平|沙坦|普利|他汀|洛尔|西林|霉素|沙星|昔布|替丁|拉唑|胺醇|双胍|西泮|唑仑|洛芬|尼松|米松|司他|缓释片|肠溶片|喉片|钙片|含片|胶囊|口服液|滴眼液|眼药水|软膏|喷雾剂|注射液)/u;

/** What stands in for the medicines a Han run names (see `MEDICINE_ZH`): 药物, once per run. */
export function chineseStandInsFor(run: string, table: WordTable): StandIn[] {
  if (!MEDICINE_ZH.test(run)) return [];
  const rank = table.rank('药物');
  return rank === undefined ? [] : [{ word: '药物', rank }];
}

/** Each part of a compound has at least this many letters ("sheep|dogs", not "pen|nock"). */
const COMPOUND_PART = 4;

/**
 * What stands in for a word the table lacks, in this order: its spelling without accents
 * ("fiancée", "açaí") or with American vowels ("anaesthetist", "coeliac"); its singular
 * ("courgettes", "labradors"); a medicine named by its class's suffix; the two known words it is
 * a compound of ("sheepdogs", "woodstove", "flatmates"). None for a name or a word in no dictionary.
 */
export function standInsFor(word: string, table: WordTable): StandIn[] {
  for (const form of spellings(word)) {
    const known = knownForm(form, table);
    if (known) return [known];
  }
  if (MEDICINE_SUFFIXES.test(word) && word.length >= 7) {
    const rank = table.rank('medication');
    if (rank !== undefined) return [{ word: 'medication', rank }];
  }
  const base = singulars(word).find((s) => s !== word) ?? word;
  // The longest head first: "sheepdogs" is sheep + dogs.
  for (let at = COMPOUND_PART; at <= word.length - COMPOUND_PART; at++) {
    const modifier = knownForm(word.slice(0, at), table, false);
    const head = knownForm(word.slice(at), table) ?? knownForm(base.slice(at), table);
    if (modifier && head) return [modifier, head];
  }
  return [];
}

function knownForm(word: string, table: WordTable, singularToo = true): StandIn | undefined {
  for (const form of singularToo ? [word, ...singulars(word)] : [word]) {
    const rank = table.rank(form);
    if (rank !== undefined) return { word: form, rank };
  }
  return undefined;
}

/** The word as written elsewhere: without accents, with American vowels. */
function spellings(word: string): string[] {
  const plain = word.normalize('NFD').replace(/\p{M}+/gu, '');
  const american = plain.replace(/ae/gu, 'e').replace(/oe(?=[^s]|$)/gu, 'e');
  return [...new Set([plain, american, american.replace(/our(?=[^s]|$)/u, 'or')])];
}

/** The singulars a plural may have: "ies" → "y", "es" → "", "s" → "". */
function singulars(word: string): string[] {
  if (word.length < 4 || !word.endsWith('s') || word.endsWith('ss')) return [];
  const out: string[] = [];
  if (word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) out.push(word.slice(0, -2));
  out.push(word.slice(0, -1));
  return out;
}
