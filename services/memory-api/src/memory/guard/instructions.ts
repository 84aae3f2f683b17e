import { AnchorIndex, wordsOf } from './anchors.ts';
import { decodeHiddenText } from './decode.ts';
import { canonicalView, compactLetters, extractTagText, rot13 } from './normalise.ts';
import { CJK } from './patterns/cjk.ts';
import { ENGLISH, ENGLISH_TRIGGER_WORDS } from './patterns/en.ts';
import { EUROPEAN_AND_OTHER } from './patterns/european.ts';
import { matchesOf, type SignalFamily, type SignalPattern, signal, words } from './phrase.ts';
import { AI_CONTEXT, softening } from './sentence-context.ts';
import { structuralEvidence } from './structure.ts';

/**
 * Graded evidence that a memory is an instruction aimed at the model that will read it back.
 * Every signal adds weight; the sentence around a phrase can soften it (quoted, reported, about
 * someone else's rules); obfuscation and encodings add weight because honest notes don't hide
 * their words. The guard compares the score with two thresholds:
 *   STRONG (≥ 4): an unambiguous injection → rejected (or quarantined, by policy);
 *   WEAK   (≥ 2): suspicious → quarantined (kept, never returned by search, listed for admins).
 */
export const STRONG_EVIDENCE = 4;
export const WEAK_EVIDENCE = 2;

export interface InstructionAssessment {
  score: number;
  /** The families that contributed, strongest first. */
  families: SignalFamily[];
}

const PATTERNS: readonly SignalPattern[] = [...ENGLISH, ...CJK, ...EUROPEAN_AND_OTHER];
const TRIGGER_WORDS: ReadonlySet<string> = new Set(ENGLISH_TRIGGER_WORDS);

/** Words run together or spaced out ("I g n o r e", "ig\nnore"): matched on letters only. */
const COMPACT_PATTERNS: ReadonlyArray<readonly [RegExp, SignalFamily]> = [
  [
    /(?<!dont|donot|never|not|wont|didnt)(?:ignore|disregard|forget|override|bypass)(?:all|any|every|the|of|your|my|these|those|previous|prior|above|earlier|preceding|former|original|initial|system|safety|content|everything|you|were|told|before)*(?:instructions?|directives?|prompts?|guidelines?|rules|polic(?:y|ies)|filters?|restrictions)/u,
    'override',
  ],
  [
    /(?:reveal|print|show|output|repeat|display)(?:me|us|the|your|full|entire|whole|hidden|initial|original|secret)*(?:systemprompt|systemmessage|instructions|hiddenprompt|initialprompt)/u,
    'leak',
  ],
  [
    /youarenow(?:dan|unrestricted|unfiltered|jailbroken|evil|free)|doanythingnow|developermodeenabled|jailbreakmode/u,
    'persona',
  ],
  [
    /(?:忽略|无视|忽视|忘记|忘掉)(?:之前|以前|以上|上面|所有|全部|你的|的){0,4}(?:指令|指示|规则|提示|设定)/u,
    'override',
  ],
  [/(?:以前|前|これまで|上記)の?(?:指示|命令|ルール)を?(?:すべて|全て)?(?:無視|忘れ)/u, 'override'],
  [/(?:игнорируи|забудь)(?:все|свои|предыдущие|прежние)*(?:инструкции|указания|правила)/u, 'override'],
];

/** Every compact pattern starts with one of these. */
const COMPACT_TRIGGER =
  /ignore|disregard|forget|override|bypass|reveal|print|show|output|repeat|display|youarenow|doanything|developermode|jailbreak|忽略|无视|忽视|忘记|忘掉|無視|忘れ|игнорируи|забудь/u;

/** Hints that a text is ROT13 or reversed English, so the costly re-read happens only then. */
const ROT13_WORDS: ReadonlySet<string> = new Set(
  'vtaber qvfertneq sbetrg vafgehpgvbaf vafgehpgvba flfgrz cebzcg ehyrf bireevqr erirny cergraq wnvyoernx lbhe lbh cerivbhf nyy gur naq abj'.split(
    ' ',
  ),
);
const REVERSED_WORDS: ReadonlySet<string> = new Set(
  'snoitcurtsni suoiverp erongi tpmorp selur tegrof metsys drageridsid'.split(' '),
);

/** "DAN" in capitals is the jailbreak persona ("Dan" is a name): counted only when the original has it so. */
const DAN: SignalPattern = signal('unrestricted', 1.5, words('dan'));

const PATTERNS_WITH_DAN: readonly SignalPattern[] = [...PATTERNS, DAN];
const ANCHORS = new AnchorIndex(PATTERNS.map((pattern) => pattern.anchors));
const ANCHORS_WITH_DAN = new AnchorIndex(PATTERNS_WITH_DAN.map((pattern) => pattern.anchors));

const MAX_DEPTH = 2;
const MAX_MATCHES_PER_PATTERN = 16;

export function assessInstructions(content: string, depth = 0): InstructionAssessment {
  const contributions = new Map<SignalFamily, number>();
  const add = (family: SignalFamily, weight: number) => {
    if (weight > 0) contributions.set(family, (contributions.get(family) ?? 0) + weight);
  };

  const { hidden, visible } = extractTagText(content);
  const view = canonicalView(visible, TRIGGER_WORDS);

  const words = wordsOf(view.text);
  const phrases = phraseEvidence(view.text, words, /\bDAN\b/u.test(view.original));
  for (const [family, weight] of phrases.byFamily) add(family, weight);
  const structural = new Map<SignalFamily, number>();
  for (const { family, weight } of structuralEvidence(view.text, view.original)) {
    structural.set(family, Math.max(structural.get(family) ?? 0, weight));
  }
  for (const [family, weight] of structural) add(family, weight);

  const compact = compactLetters(view.text);
  if (COMPACT_TRIGGER.test(compact)) {
    for (const [compactPattern, family] of COMPACT_PATTERNS) {
      if (!phrases.found.has(family) && compactPattern.test(compact)) add('obfuscation', 4.5);
    }
  }

  if (depth < MAX_DEPTH) {
    const rereads: string[] = [];
    let rot13Words = 0;
    for (const word of words) if (ROT13_WORDS.has(word)) rot13Words += 1;
    if (rot13Words >= 2) rereads.push(rot13(view.text));
    if ([...words].some((word) => REVERSED_WORDS.has(word))) rereads.push([...view.text].reverse().join(''));
    for (const { text } of decodeHiddenText(view.original)) rereads.push(text);
    for (const text of rereads) {
      const inner = assessInstructions(text, depth + 1);
      if (inner.score >= WEAK_EVIDENCE) add('encoded', inner.score + 2);
    }
    if (hidden) {
      // Tag characters are invisible to every reviewer: their presence alone is suspect.
      const inner = assessInstructions(hidden, depth + 1);
      add('obfuscation', 3 + (inner.score >= 1 ? inner.score + 1 : 0));
    }
  }

  let score = [...contributions.values()].reduce((sum, weight) => sum + weight, 0);
  if (score >= 1.5) {
    const { counts } = view;
    const amplifier =
      (counts.invisibleInWords > 0 ? 1.5 : 0) +
      (counts.mixedScriptWords > 0 ? 1.5 : 0) +
      (counts.leetWords > 0 ? 1 : 0) +
      (counts.bidiControls > 0 ? 1 : 0);
    if (amplifier > 0) {
      const bonus = Math.min(3, amplifier);
      add('obfuscation', bonus);
      score += bonus;
    }
  }
  const families = [...contributions.entries()].sort((a, b) => b[1] - a[1]).map(([family]) => family);
  return { score: Math.round(score * 100) / 100, families };
}

interface PhraseEvidence {
  byFamily: Map<SignalFamily, number>;
  /** Families matched before any softening (for the split-word check). */
  found: Set<SignalFamily>;
}

/** The evidence gathered in one sentence. */
class SentenceEvidence {
  /** Strongest weight per family, and the sum over distinct (non-overlapping) matches. */
  private readonly strongest = new Map<SignalFamily, number>();
  private readonly totals = new Map<SignalFamily, number>();
  private readonly spans = new Map<SignalFamily, Array<readonly [number, number]>>();
  private top = -1;
  private topAt = 0;
  private topFamily: SignalFamily = 'override';

  constructor(readonly sentence: Sentence) {}

  record(family: SignalFamily, weight: number, start: number, end: number): void {
    if (weight > (this.strongest.get(family) ?? 0)) this.strongest.set(family, weight);
    // The same words matched by two patterns (or two languages: "ignore … instructions" is
    // also French) are one piece of evidence.
    const spans = this.spans.get(family) ?? [];
    if (!spans.some(([from, to]) => start < to && end > from)) {
      this.totals.set(family, (this.totals.get(family) ?? 0) + weight);
    }
    spans.push([start, end]);
    this.spans.set(family, spans);
    if (weight > this.top) {
      this.top = weight;
      this.topAt = start - this.sentence.start;
      this.topFamily = family;
    }
  }

  /** Each family at its strongest match plus a little for further distinct ones; then softened. */
  scored(): { score: number; families: Map<SignalFamily, number> } {
    const families = new Map<SignalFamily, number>();
    let raw = 0;
    for (const [family, strongest] of this.strongest) {
      // Words already counted by a stronger family ("from now on" inside "from now on you are …").
      if (this.withinStronger(family, strongest)) continue;
      const others = (this.totals.get(family) ?? strongest) - strongest;
      const weight = strongest + Math.min(1.5, others / 4);
      families.set(family, weight);
      raw += weight;
    }
    const softened = softening(this.sentence.text, this.topAt, this.topFamily);
    return { score: Math.max(0, raw - softened), families };
  }

  private withinStronger(family: SignalFamily, weight: number): boolean {
    const own = this.spans.get(family) ?? [];
    return own.every(([from, to]) =>
      [...this.spans.entries()].some(
        ([other, spans]) =>
          other !== family &&
          (this.strongest.get(other) ?? 0) > weight &&
          spans.some(([otherFrom, otherTo]) => otherFrom <= from && otherTo >= to),
      ),
    );
  }
}

/**
 * Phrase signals, sentence by sentence: a sentence scores the sum of its families, minus what
 * its context softens. The text scores its strongest sentence plus half of each other sentence
 * that scores at least 1.
 */
function phraseEvidence(text: string, words: ReadonlySet<string>, capitalDan: boolean): PhraseEvidence {
  const patterns = capitalDan ? PATTERNS_WITH_DAN : PATTERNS;
  const admitted = (capitalDan ? ANCHORS_WITH_DAN : ANCHORS).admitted(words);
  const scripts = new Map<RegExp, boolean>();
  let sentences: Sentence[] | undefined;
  const evidence = new Map<number, SentenceEvidence>();
  const found = new Set<SignalFamily>();
  for (const [position, pattern] of patterns.entries()) {
    if (!admitted[position]) continue;
    if (pattern.script) {
      if (!scripts.has(pattern.script)) scripts.set(pattern.script, pattern.script.test(text));
      if (!scripts.get(pattern.script)) continue;
    }
    let matches = 0;
    for (const match of matchesOf(pattern.pattern, text)) {
      // Evidence saturates long before this; a text repeating a phrase cannot make the guard slow.
      if (++matches > MAX_MATCHES_PER_PATTERN) break;
      sentences ??= splitSentences(text);
      const at = sentenceAt(sentences, match.index);
      const sentence = sentences[at] as Sentence;
      let weight = pattern.weight;
      for (const [boost, extra] of pattern.boosts ?? []) if (boost.test(sentence.text)) weight += extra;
      if (pattern.aiContext && AI_CONTEXT.test(sentence.text)) weight += pattern.aiContext;
      found.add(pattern.family);
      let slot = evidence.get(at);
      if (!slot) {
        slot = new SentenceEvidence(sentence);
        evidence.set(at, slot);
      }
      slot.record(pattern.family, weight, match.index, match.index + match[0].length);
    }
  }
  const scored = [...evidence.values()]
    .map((slot) => slot.scored())
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  const byFamily = new Map<SignalFamily, number>();
  scored.forEach(({ score, families }, rank) => {
    if (rank > 0 && score < 1) return;
    const share = rank === 0 ? score : score / 2;
    // A sentence's score is attributed to its families in proportion to their weights.
    const raw = [...families.values()].reduce((sum, weight) => sum + weight, 0);
    for (const [family, weight] of families) {
      byFamily.set(family, (byFamily.get(family) ?? 0) + (share * weight) / raw);
    }
  });
  return { byFamily, found };
}

interface Sentence {
  start: number;
  text: string;
}

const SENTENCE_END = /[.!?]+(?=\s|$)|[。！？]+|\n+/gu;

function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  let start = 0;
  for (const match of matchesOf(SENTENCE_END, text)) {
    const end = match.index + match[0].length;
    sentences.push({ start, text: text.slice(start, end) });
    start = end;
  }
  if (start < text.length || sentences.length === 0) sentences.push({ start, text: text.slice(start) });
  return sentences;
}

function sentenceAt(sentences: readonly Sentence[], index: number): number {
  let low = 0;
  let high = sentences.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((sentences[mid] as Sentence).start <= index) low = mid;
    else high = mid - 1;
  }
  return low;
}
