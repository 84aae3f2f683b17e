import { anchorsOf } from '../anchors.ts';
import { boost, foldSource, gap, SEP, type SignalOptions, type SignalPattern, signal, words } from '../phrase.ts';

/**
 * The core families (override, persona, leak, bypass, new instructions, exfiltration, future
 * behaviour) for a language written with spaces, from its word lists. Words are given in lower
 * case; accents may be kept (they are folded like the text) and `\p{L}*` stands for endings.
 */
export interface Lexicon {
  /** Imperatives of "ignore/forget/do not follow". */
  overrideVerbs: readonly string[];
  /** "instructions/rules/prompt/…" (any inflection). */
  overrideObjects: readonly string[];
  /** "everything before", "all of the above": what an override drops when it names no rules. */
  everything: readonly string[];
  /** "previous/above/original/…": makes an override unambiguous. */
  priorQualifiers: readonly string[];
  /** "all/your/…". */
  weakQualifiers: readonly string[];
  /** Verb-final languages put the object first ("talimatları yok say"). */
  objectFirst?: boolean;
  /** Languages with their own script: the patterns run only on text in it. */
  script?: RegExp;
  /** Common words of the language, the gate for patterns whose word lists are too irregular to spell out. */
  markers?: readonly string[];
  /** "you are now …", "from now on you …": a new persona. */
  persona: readonly string[];
  /** "pretend/act as/play the role of": weaker. */
  personaSoft: readonly string[];
  /** "without/with no" … "restrictions/filters/censorship". */
  without: readonly string[];
  limits: readonly string[];
  leakVerbs: readonly string[];
  /** "system prompt", "your instructions", … (the thing to reveal). */
  leakObjects: readonly string[];
  bypassVerbs: readonly string[];
  /** Safety-specific objects ("security filters", "moderation"). */
  bypassObjects: readonly string[];
  /** "new instructions" (followed by a colon to count). */
  newInstructions: readonly string[];
  sendVerbs: readonly string[];
  sensitiveData: readonly string[];
  /** "from now on", "in every answer", "always answer". */
  behaviour: readonly string[];
}

const URL_OR_EMAIL = '(?:https?:|www\\.|[\\p{L}\\p{N}._%+-]+@[\\p{L}\\p{N}-]+\\.)';

export function lexiconSignals(lex: Lexicon): SignalPattern[] {
  const verbs = words(...lex.overrideVerbs);
  const objects = words(...lex.overrideObjects);
  const overrideBoosts = [boost(words(...lex.priorQualifiers), 1), boost(words(...lex.weakQualifiers), 0.5)];
  const override = lex.objectFirst ? `${objects}${gap(3)}${verbs}` : `${verbs}${gap(4)}${objects}`;
  const leak = lex.objectFirst
    ? `${words(...lex.leakObjects)}${gap(3)}${words(...lex.leakVerbs)}`
    : `${words(...lex.leakVerbs)}${gap(4)}${words(...lex.leakObjects)}`;
  const bypass = lex.objectFirst
    ? `${words(...lex.bypassObjects)}${gap(3)}${words(...lex.bypassVerbs)}`
    : `${words(...lex.bypassVerbs)}${gap(3)}${words(...lex.bypassObjects)}`;
  const on = (list: readonly string[], options: SignalOptions = {}): SignalOptions => ({
    ...options,
    anchorOn: lex.markers && !anchorsOf(list.map(foldSource)) ? lex.markers : list,
    ...(lex.script ? { script: lex.script } : {}),
  });
  return [
    signal('override', 3, override, on(lex.overrideObjects, { boosts: overrideBoosts })),
    signal(
      'override',
      3.5,
      lex.objectFirst ? `${words(...lex.everything)}${gap(2)}${verbs}` : `${verbs}${gap(1)}${words(...lex.everything)}`,
      on(lex.everything),
    ),
    signal('persona', 3, words(...lex.persona), on(lex.persona)),
    signal('persona', 1.5, words(...lex.personaSoft), on(lex.personaSoft)),
    signal(
      'unrestricted',
      1.5,
      `${words(...lex.without)}${SEP}(?:\\p{L}+${SEP}){0,2}${words(...lex.limits)}`,
      on(lex.limits, { aiContext: 1.5 }),
    ),
    signal('leak', 4, leak, on(lex.leakObjects)),
    signal('bypass', 3, bypass, on(lex.bypassObjects, { aiContext: 1 })),
    signal(
      'new-instructions',
      1.5,
      `${words(...lex.newInstructions)}\\s*(?::|—|-)`,
      on(lex.newInstructions, { aiContext: 1.5 }),
    ),
    signal(
      'exfiltration',
      2.5,
      `${words(...lex.sendVerbs)}${gap(6)}${words(...lex.sensitiveData)}`,
      on(lex.sensitiveData, { boosts: [boost(URL_OR_EMAIL, 1)] }),
    ),
    signal('behaviour', 1, words(...lex.behaviour), on(lex.behaviour)),
  ];
}
