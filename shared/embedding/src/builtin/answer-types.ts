import { l2Normalise } from '../vector.ts';
import { featureHash } from './feature-hash.ts';
import { type WordTable, WordTableFormatError } from './word-vectors/word-table.ts';
import type { WordNetNouns } from './word-vectors/wordnet.ts';

/**
 * Kinds of answer that questions about a person ask for. A question names the kind ("what is her
 * job?", "does she have any pets?", "which instrument…"), the fact names an instance of it ("…is a
 * carpenter", "…two cats", "…the cello"), and the two rarely share a word — nor, often, a close
 * word vector ("job" and "firefighter" are far apart in GloVe). So both sides get the kind's own
 * direction: a question through its cue words, a fact through any word whose vector lies close
 * to the centroid of the kind's example members (so "greyhound" or "oncologist" count without being
 * listed). General knowledge about everyday facts, not tuned to any dataset.
 */
interface AnswerType {
  /** Words a question uses to ask for this kind (and facts that name the kind itself). */
  cues: string;
  /** Typical instances; their centroid decides which other words are instances too. */
  members: string;
}

const ANSWER_TYPES: Readonly<Record<string, AnswerType>> = {
  occupation: {
    cues: 'job jobs occupation profession career living employed employment employer work works working',
    members:
      'nurse teacher engineer doctor carpenter lawyer programmer developer dentist firefighter pilot accountant ' +
      'photographer chef architect plumber electrician pharmacist surgeon journalist designer mechanic farmer ' +
      'librarian paramedic cashier',
  },
  pet: {
    cues: 'pet pets animal animals',
    members: 'dog cat puppy kitten parrot hamster rabbit goldfish terrier labrador poodle budgie tortoise',
  },
  partner: {
    cues: 'spouse partner married',
    members: 'husband wife fiance fiancee boyfriend girlfriend',
  },
  relative: {
    cues: 'family relatives relative sibling siblings kid kids child children parents',
    members: 'mother father brother sister son daughter grandmother grandfather aunt uncle cousin niece nephew',
  },
  instrument: {
    cues: 'instrument instruments musical',
    members: 'cello violin piano guitar drums flute trumpet saxophone ukulele harp clarinet banjo accordion',
  },
  exercise: {
    cues: 'sport sports exercise exercises fit fitness workout active shape',
    members: 'yoga running jogging swimming tennis cycling badminton hiking soccer basketball pilates climbing rowing',
  },
  diet: {
    cues: 'diet eat eats eating food foods meal meals cuisine dish',
    members: 'vegetarian vegan pescatarian gluten meat dairy carbs keto halal kosher',
  },
  beverage: {
    cues: 'drink drinks beverage beverages',
    members: 'coffee tea beer wine juice latte espresso whisky soda lemonade',
  },
  ailment: {
    cues: 'health condition conditions medical illness disease ailment symptoms hurt hurts medication medicine',
    members: 'asthma diabetes allergy migraine migraines insomnia arthritis eczema hypertension anxiety depression',
  },
  fear: {
    cues: 'fear fears phobia phobias afraid scared frightened frighten',
    members: 'heights spiders snakes flying needles darkness clowns thunder',
  },
  hometown: {
    cues: 'hometown grew raised born originally native',
    members: 'lisbon dublin madrid chicago melbourne manchester toronto yorkshire bavaria lagos mumbai',
  },
  language: {
    cues: 'language languages tongue speak speaks fluent',
    members: 'spanish french japanese portuguese german mandarin italian arabic russian korean',
  },
  vehicle: {
    cues: 'car cars vehicle vehicles drive drives',
    members: 'toyota volvo honda bmw volkswagen nissan ford tesla audi motorbike',
  },
  trip: {
    cues: 'trip trips travel travelling traveling holiday holidays vacation journey abroad',
    members: 'japan italy iceland canada peru thailand greece portugal mexico kenya',
  },
};

/** Only words this close to a kind's centroid count as its instances (cosine, 100-d GloVe). */
const MEMBERSHIP_COSINE = 0.62;

/**
 * builtin-v5's kinds: v4's with a few more words questions use to ask for them, a kind for
 * medication ("is she on any *medication*?" → "…takes tablets…"), and WordNet: a word one of whose two most frequent noun senses lies under a kind's anchor synsets is
 * an instance of it ("physiotherapist" under *health professional*, "retriever" under *domestic
 * animal*, "inhaler"… under *medicine*), however far its GloVe vector lies from the centroid.
 * Anchors are `lemma#sense` of WordNet 3.1. General knowledge, not tuned to any dataset.
 */
const V5_ANSWER_TYPES: Readonly<Record<string, WordNetAnswerType>> = {
  occupation: v4Kind('occupation', {
    cues: 'profession professions vocation',
    anchors: 'worker#1 professional#1 skilled_worker#1 health_professional#1 craftsman#1 employee#1',
  }),
  pet: v4Kind('pet', { anchors: 'domestic_animal#1 dog#1 house_cat#1 fish#1 bird#2 rodent#1' }),
  partner: v4Kind('partner', { cues: 'partners marriage', anchors: 'spouse#1 lover#1' }),
  relative: v4Kind('relative', { cues: 'brothers sisters offspring', anchors: 'relative#1 offspring#1' }),
  instrument: v4Kind('instrument', { anchors: 'musical_instrument#1' }),
  exercise: v4Kind('exercise', { anchors: 'sport#1 exercise#1' }),
  diet: v4Kind('diet', {}),
  beverage: v4Kind('beverage', {}),
  ailment: v4Kind('ailment', { anchors: 'ill_health#1 illness#1 disease#1 disorder#1 symptom#1 injury#1 allergy#1' }),
  fear: v4Kind('fear', { anchors: 'phobia#1 fear#1' }),
  hometown: v4Kind('hometown', {}),
  language: v4Kind('language', { anchors: 'natural_language#1' }),
  vehicle: v4Kind('vehicle', { anchors: 'motor_vehicle#1 bicycle#1 wheeled_vehicle#1' }),
  trip: v4Kind('trip', {}),
  medication: {
    cues: 'medication medications medicine medicines meds drug drugs prescription prescribed pills',
    members: 'tablets pills insulin inhaler antibiotics ibuprofen aspirin paracetamol antidepressants vitamins',
    anchors: 'drug#1 medicine#2 pill#2',
  },
};

/**
 * builtin-v6's kinds: v5's, plus five more things everyday questions about a person ask for and
 * facts rarely name with the question's word — a birthday ("when was she *born*?" → "her
 * *birthday* is on 14 March"), schooling ("where did she go to *college*?" → "*studied* chemistry
 * at the *University* of…"), a home ("where is his *home*?" → "rents a terraced *house*"), pastimes
 * ("what does she do to *relax*?" → "*knits* jumpers") and smoking ("does he use *tobacco*?" →
 * "quit *smoking*"). Members are found as for v5 (centroid, or WordNet hypernyms under the anchors).
 * General knowledge, not tuned to any dataset.
 */
const V6_ANSWER_TYPES: Readonly<Record<string, WordNetAnswerType>> = {
  ...V5_ANSWER_TYPES,
  birthday: {
    cues: 'birthday birthdays born birth birthdate',
    members: 'birthday birthdays birthdate birth',
    anchors: '',
  },
  education: {
    cues:
      'education educated school schools schooling university universities college colleges study studied ' +
      'studies studying degree degrees graduate graduated student',
    members: 'university college school degree diploma bachelor masters phd graduate',
    anchors: 'educational_institution#1 academic_degree#1',
  },
  residence: {
    cues: 'home homes live lives reside resides residence address house flat apartment',
    members: 'house flat apartment bungalow cottage terrace studio townhouse',
    anchors: 'dwelling#1 housing#1',
  },
  pastime: {
    cues: 'hobby hobbies pastime pastimes leisure spare enjoy enjoys relax relaxes unwind weekend weekends fun',
    members:
      'knitting painting gardening fishing baking photography chess sewing pottery crochet birdwatching crosswords',
    anchors: 'hobby#1 handicraft#1',
  },
  smoking: {
    cues: 'smoke smokes smoked smoking smoker smokers tobacco nicotine cigarette cigarettes cigar cigars vape vaping',
    members: 'cigarettes cigarette tobacco nicotine cigars smoking',
    anchors: 'tobacco#1 cigarette#1',
  },
};

/**
 * builtin-v8's kinds: v6's, with more of the words questions use to ask for them (where someone
 * *grew up* or spent their *childhood*, how someone *commutes*) and seven more things everyday
 * questions about a person ask for in other words than the fact's: sleep ("does she have
 * *insomnia*?" → "*sleeps* badly"), surgery ("has he had an *operation*?" → "knee *surgery*"),
 * eyesight ("poor *eyesight*?" → "wears *glasses*"), dairy ("can he drink *milk*?" → "*lactose*
 * intolerant"), herbs ("which *herb*…?" → "*coriander*"), sports teams ("which *club* does he
 * follow?" → "*supports* Liverpool") and aims ("her career *ambitions*?" → "*wants* to open…",
 * "her *dream* is to…"). Members are found as for v5. General knowledge, not tuned to any dataset.
 */
const V8_ANSWER_TYPES: Readonly<Record<string, WordNetAnswerType>> = {
  ...V6_ANSWER_TYPES,
  hometown: moreOf(V6_ANSWER_TYPES, 'hometown', 'grow grows growing grown childhood upbringing brought'),
  vehicle: moreOf(
    V6_ANSWER_TYPES,
    'vehicle',
    'commute commutes commuting transport transportation ride rides riding bicycle bike scooter tram bus ' +
      'subway metro',
  ),
  sleep: {
    cues: 'sleep sleeps sleeping slept asleep sleepless insomnia awake wake wakes waking woke bedtime',
    members: 'sleep insomnia sleepless asleep snoring nightmares naps',
    anchors: 'sleep#1 sleep_disorder#1',
  },
  surgery: {
    cues: 'surgery surgeries operation operations operated surgical',
    members: 'surgery surgeries transplant appendectomy',
    anchors: 'surgical_procedure#1',
  },
  eyesight: {
    cues: 'eyesight sight vision',
    members: 'glasses spectacles eyeglasses lenses myopia nearsighted',
    anchors: 'eyeglasses#1 contact_lens#1',
  },
  dairy: {
    cues: 'milk dairy',
    members: 'lactose dairy milk cheese yogurt cream butter',
    anchors: 'dairy_product#1',
  },
  herb: {
    cues: 'herb herbs',
    members: 'coriander cilantro parsley basil mint dill thyme rosemary oregano sage',
    anchors: 'herb#2',
  },
  team: {
    cues: 'team teams club clubs fan fans supporter supporters support supports follow follows',
    members: 'arsenal chelsea liverpool everton tottenham juventus celtic rangers',
    anchors: 'football_team#1',
  },
  aim: {
    cues:
      'goal goals ambition ambitions aspiration aspirations dream dreams hope hopes wish wishes aim aims ' +
      'bucket someday',
    members: 'wants hopes dreams intends aspires wishes',
    anchors: '',
  },
};

/** A kind of `kinds` with more cue words (its members, and so its centroid, as they were). */
function moreOf(kinds: Readonly<Record<string, WordNetAnswerType>>, name: string, cues: string): WordNetAnswerType {
  const kind = kinds[name];
  if (!kind) throw new Error(`no answer kind ${name}`);
  return { ...kind, cues: `${kind.cues} ${cues}` };
}

interface WordNetAnswerType extends AnswerType {
  /** WordNet 3.1 noun senses (`lemma#sense`) whose hyponyms are instances of the kind. */
  anchors: string;
}

/** A kind of v4 with more cue words, members and WordNet anchors. */
function v4Kind(name: string, more: { cues?: string; members?: string; anchors?: string }): WordNetAnswerType {
  const kind = ANSWER_TYPES[name];
  if (!kind) throw new Error(`builtin-v4 has no answer kind ${name}`);
  const join = (a: string, b: string | undefined) => (b ? `${a} ${b}` : a);
  return { cues: join(kind.cues, more.cues), members: join(kind.members, more.members), anchors: more.anchors ?? '' };
}

/**
 * WordNet membership looks at a word's most frequent noun sense only, and needs its vector to lie
 * at least this close to the kind's centroid too: GloVe's words are lower-cased, and a name or a
 * rare sense ("rose" the wine, "collins" the cocktail, "general" the officer) must not count.
 */
const WORDNET_SENSES = 1;
const WORDNET_MIN_COSINE = 0.3;
/** Bumped when `deriveAnswerKinds` computes something else from the same definitions (v5 sets). */
const KINDS_DERIVATION = 3;
/** Bumped when the inflection rules (`inflectionKinds`, `gerunds`) change what they find. */
const INFLECTIONS_DERIVATION = 1;
/** Bumped when the word-form rules (`wordFormKinds`, the names list) change what they find. */
const WORD_FORMS_DERIVATION = 2;

/**
 * builtin-v10's kinds: v8's, with one more word questions use to ask for an occupation (one's
 * *trade*), and two more things everyday questions about a person ask for in other words than the
 * fact's: faith ("what *religion*…?" → "a *Methodist*", "goes to *mosque*") and charity work ("does
 * she *volunteer*?" → "helps at the *food bank*"). An age needs no kind (question-phrases.ts reads
 * "how old" and "turned 44" with the word *age* beside theirs), nor does money, whose words' other
 * senses — pay a visit, spend a holiday, save a life, 省 the province — are everywhere. Members are
 * found as for v5. General knowledge, not tuned to any dataset.
 */
const V10_ANSWER_TYPES: Readonly<Record<string, WordNetAnswerType>> = {
  ...V8_ANSWER_TYPES,
  occupation: moreOf(V8_ANSWER_TYPES, 'occupation', 'trade trades'),
  faith: {
    cues: 'religion religions religious faith faiths church churches worship worships pray prays praying believer spiritual',
    members:
      'christian catholic methodist baptist anglican presbyterian muslim buddhist hindu sikh jewish protestant ' +
      'mosque synagogue chapel church',
    anchors: 'religion#2 religious_person#1 place_of_worship#1',
  },
  charity: {
    cues: 'charity charities charitable volunteer volunteers volunteering',
    members: 'charity volunteer volunteers volunteering fundraising donates donate fundraiser',
    anchors: 'charity#2',
  },
};

/** A set of kinds as one model version uses it. */
export interface AnswerKindSet {
  types: Readonly<Record<string, AnswerType & { anchors?: string }>>;
  membershipCosine: number;
  /** Whether members are also found under WordNet hypernyms (`anchors`). */
  wordNet: boolean;
  /**
   * Whether a listed word's regular inflections count as listed too ("rabbits" for "rabbit",
   * "sleeps" for "sleep"), and a Chinese word's verb glosses by their -ing form too (跑步 "to run"
   * is "running"): the lists name one form, texts use any (builtin-v8).
   */
  inflections?: boolean;
  /**
   * Whether WordNet's derivationally related verbs and adjectives of a listed word, and their
   * inflections, are its kind's members too ("teaches" for "teacher", "allergic" for "allergy",
   * "paints" for "painting"), whether the -s forms of activities (and those verbs) are kept apart as
   * `activities` ("runs" is running, but not in "runs a bakery"), and whether the words whose most
   * frequent WordNet sense is a common noun are listed (`commonNouns`: capitalised in mid-sentence,
   * "her daughter Sage" is a name; builtin-v9).
   */
  wordForms?: boolean;
}

export const ANSWER_KINDS_V4: AnswerKindSet = {
  types: ANSWER_TYPES,
  membershipCosine: MEMBERSHIP_COSINE,
  wordNet: false,
};
export const ANSWER_KINDS_V5: AnswerKindSet = {
  types: V5_ANSWER_TYPES,
  membershipCosine: MEMBERSHIP_COSINE,
  wordNet: true,
};
export const ANSWER_KINDS_V6: AnswerKindSet = {
  types: V6_ANSWER_TYPES,
  membershipCosine: MEMBERSHIP_COSINE,
  wordNet: true,
};

export const ANSWER_KINDS_V8: AnswerKindSet = {
  types: V8_ANSWER_TYPES,
  membershipCosine: MEMBERSHIP_COSINE,
  wordNet: true,
  inflections: true,
};

/**
 * builtin-v9's kinds: v8's definitions, with the forms of their words WordNet and English
 * morphology give (see `AnswerKindSet.wordForms`).
 */
export const ANSWER_KINDS_V9: AnswerKindSet = { ...ANSWER_KINDS_V8, wordForms: true };

/** builtin-v10's kinds: v10's definitions, read as v9 reads its own (see `AnswerKindSet.wordForms`). */
export const ANSWER_KINDS_V10: AnswerKindSet = { ...ANSWER_KINDS_V9, types: V10_ANSWER_TYPES };

/** The kind set of a `answerKindSet` feature value (see features.ts). */
export function answerKindSet(version: number): AnswerKindSet {
  if (version === 4) return ANSWER_KINDS_V4;
  if (version === 5) return ANSWER_KINDS_V5;
  if (version === 6) return ANSWER_KINDS_V6;
  if (version === 8) return ANSWER_KINDS_V8;
  if (version === 9) return ANSWER_KINDS_V9;
  // builtin-v11 reads v10's kinds (its set number names its question phrases).
  if (version === 10 || version === 11) return ANSWER_KINDS_V10;
  throw new RangeError(`no answer kind set ${version} (4, 5, 6, 8, 9, 10 or 11)`);
}

/** Names a set's definitions: a derived file made from other definitions is not used. */
export function answerKindsFingerprint(set: AnswerKindSet): string {
  // v4's name is what it always was, so its cached file keeps its name.
  if (set === ANSWER_KINDS_V4) return featureHash(JSON.stringify([ANSWER_TYPES, MEMBERSHIP_COSINE])).toString(36);
  return featureHash(
    JSON.stringify([
      set.types,
      set.membershipCosine,
      set.wordNet,
      WORDNET_SENSES,
      WORDNET_MIN_COSINE,
      KINDS_DERIVATION,
      // Named only when set, so the sets before it keep their names (and cached files).
      ...(set.inflections ? [`inflections-${INFLECTIONS_DERIVATION}`] : []),
      ...(set.wordForms ? [`word-forms-${WORD_FORMS_DERIVATION}`] : []),
    ]),
  ).toString(36);
}

/** The derived answer kinds of words, as the embedder reads them. */
export interface AnswerTypeIndex {
  /** Word → the centroids of the answer kinds it cues or is an instance of (unit length). */
  kinds: ReadonlyMap<string, readonly Float32Array[]>;
  /**
   * Word → the kinds it has as a verb of an activity ("runs", "paints" for running, painting),
   * which a following determiner takes back: "runs a bakery", "paints the fence" (v9; else empty).
   */
  activities: ReadonlyMap<string, readonly Float32Array[]>;
  /** Words whose most frequent sense is a common noun, names when capitalised in mid-sentence (v9; else empty). */
  commonNouns: ReadonlySet<string>;
}

/** What is derived once and cached: the kinds' centroids and, per word, the kinds it belongs to. */
export interface AnswerKinds {
  centroids: number[][];
  words: Record<string, number[]>;
  /** See `AnswerTypeIndex.activities` (word forms only). */
  activities?: Record<string, number[]>;
  /** See `AnswerTypeIndex.commonNouns` (word forms only). */
  commonNouns?: string[];
}

/**
 * Scans every word of `table` against each kind's centroid (≈ 10⁸ multiplications: done when the
 * tables are derived, not per process). A Chinese word belongs to the kinds of its English glosses.
 */
export function deriveAnswerKinds(
  table: WordTable,
  chineseGlosses: Readonly<Record<string, string[]>>,
  set: AnswerKindSet,
  wordNet?: WordNetNouns,
): AnswerKinds {
  if (set.wordNet && !wordNet) throw new Error('this answer kind set needs WordNet');
  const words = new Map<string, Set<number>>();
  const activities = new Map<string, Set<number>>();
  const addTo = (map: Map<string, Set<number>>) => (word: string, kind: number) => {
    const kinds = map.get(word) ?? new Set<number>();
    kinds.add(kind);
    map.set(word, kinds);
  };
  const add = addTo(words);
  const addActivity = addTo(activities);
  const d = table.dimension;
  const unit = new Float32Array(d);
  const types = Object.values(set.types);
  const centroids = types.map((type, kind) => {
    const centroid = new Float32Array(d);
    const members = type.members.split(' ');
    for (const member of members) {
      const rank = table.rank(member);
      if (rank === undefined) continue;
      unit.fill(0);
      table.addTo(unit, rank, 1);
      l2Normalise(unit);
      for (let i = 0; i < d; i++) centroid[i] = (centroid[i] as number) + (unit[i] as number);
    }
    l2Normalise(centroid);
    for (const word of [...type.cues.split(' '), ...members]) add(word, kind);
    return centroid;
  });
  const anchors = types.map((type) => anchorSynsets(type.anchors ?? '', wordNet));
  // The words the lists name keep the kinds they were listed for: "phobias" asks for a fear, not
  // for an ailment, although WordNet files phobias under disorders.
  const listed = new Set(words.keys());
  const isWord = (word: string) => table.rank(word) !== undefined;
  const inflected = set.inflections ? inflectionKinds(words, isWord, set.wordForms === true) : undefined;
  const forms = set.wordForms && wordNet ? wordFormKinds(words, wordNet, isWord) : undefined;
  const cosines = new Float64Array(centroids.length);
  const underWordNet: Array<[string, number]> = [];
  const derived: Array<[string, number, boolean]> = [];
  for (let rank = 0; rank < table.size; rank++) {
    const word = table.words[rank] as string;
    table.cosinesTo(rank, centroids, cosines);
    if (inflected && !listed.has(word)) {
      const { kinds, activityKinds } = inflected(word);
      for (const kind of kinds) add(word, kind);
      for (const kind of activityKinds) addActivity(word, kind);
    }
    if (forms && !listed.has(word)) {
      // A derived form must lie near its kind too: "fish" the verb is not a pet.
      for (const [kind, activity] of forms.get(word) ?? [])
        if ((cosines[kind] as number) >= WORDNET_MIN_COSINE) derived.push([word, kind, activity]);
    }
    for (let kind = 0; kind < centroids.length; kind++) {
      const cosine = cosines[kind] as number;
      if (cosine >= set.membershipCosine) add(word, kind);
      else if (
        set.wordNet &&
        !listed.has(word) &&
        cosine >= WORDNET_MIN_COSINE &&
        wordNet?.isUnder(word, anchors[kind] as Set<number>, WORDNET_SENSES) === true
      ) {
        underWordNet.push([word, kind]);
      }
    }
  }
  // A Chinese word takes the kinds of its glosses from the lists and centroids only: a gloss is one
  // reading among several, and WordNet's kinds (hypernyms, derived forms) of that reading are too
  // often not the word's (过敏 "allergic" would ask about health).
  for (const [chinese, glosses] of Object.entries(chineseGlosses)) {
    for (const gloss of glosses) {
      for (const form of set.inflections ? [gloss, ...gerunds(gloss)] : [gloss])
        for (const kind of words.get(form) ?? []) add(chinese, kind);
    }
  }
  for (const [word, kind] of underWordNet) add(word, kind);
  for (const [word, kind, activity] of derived) (activity ? addActivity : add)(word, kind);
  const sorted = (map: Map<string, Set<number>>) =>
    Object.fromEntries([...map].map(([word, kinds]) => [word, [...kinds].sort((a, b) => a - b)]));
  // An activity the word also has plainly needs no determiner rule.
  for (const [word, kinds] of activities) for (const kind of words.get(word) ?? []) kinds.delete(kind);
  for (const [word, kinds] of activities) if (kinds.size === 0) activities.delete(word);
  return {
    centroids: centroids.map((c) => Array.from(c)),
    words: sorted(words),
    ...(set.wordForms
      ? {
          activities: sorted(activities),
          commonNouns: table.words.filter((word) => wordNet?.firstSenseIsCommonNoun(word) === true),
        }
      : {}),
  };
}

/**
 * Word → the kinds (and whether only as an activity) it takes as a form WordNet derives from a
 * listed word, or a regular inflection of one: "teach", "teaches" for "teacher"; "allergic" for
 * "allergy"; "swim", "swims" for "swimming" (an activity: the listed word is an -ing form).
 */
function wordFormKinds(
  words: ReadonlyMap<string, ReadonlySet<number>>,
  wordNet: WordNetNouns,
  isWord: (word: string) => boolean,
): Map<string, Map<number, boolean>> {
  const forms = new Map<string, Map<number, boolean>>();
  for (const [word, kinds] of words) {
    const activity = word.endsWith('ing');
    for (const lemma of wordNet.derivedForms(word, WORDNET_SENSES)) {
      for (const form of [lemma, ...verbForms(lemma)].filter(isWord)) {
        const known = forms.get(form) ?? new Map<number, boolean>();
        // A kind reached plainly from one listed word stays plain.
        for (const kind of kinds) known.set(kind, (known.get(kind) ?? true) && activity);
        forms.set(form, known);
      }
    }
  }
  return forms;
}

/** The regular -s, -ing and -ed forms a bare English verb may take. */
function verbForms(verb: string): string[] {
  const s = /(?:s|x|z|ch|sh)$/.test(verb)
    ? `${verb}es`
    : /[^aeiou]y$/.test(verb)
      ? `${verb.slice(0, -1)}ies`
      : `${verb}s`;
  const stem = verb.endsWith('e') ? verb.slice(0, -1) : verb;
  return [s, ...gerunds(verb), `${stem}ed`, `${verb}${verb.at(-1)}ed`];
}

/**
 * The kinds a word not listed takes from the listed words it inflects ("rabbits", "sleeping",
 * "operated", "knits" from "rabbit", "sleep", "operate", "knitting") or whose -s form it is the
 * stem of ("want" from "wants"). Stems of -ing and -ed forms are not given their kinds: "run" is
 * not "running".
 */
function inflectionKinds(
  words: ReadonlyMap<string, ReadonlySet<number>>,
  isWord: (word: string) => boolean,
  activitiesApart: boolean,
): (word: string) => { kinds: Set<number>; activityKinds: Set<number> } {
  // The lists as they are now: kinds found later (by centroid, WordNet or inflection) do not spread.
  const listed = new Map([...words].map(([word, kinds]) => [word, new Set(kinds)]));
  const byStem = new Map<string, Set<number>>();
  for (const [word, kinds] of listed) {
    if (word.length < 4) continue;
    for (const stem of pluralStems(word)) {
      const known = byStem.get(stem) ?? new Set<number>();
      for (const kind of kinds) known.add(kind);
      byStem.set(stem, known);
    }
  }
  return (word) => {
    const kinds = new Set<number>(byStem.get(word) ?? []);
    const verb = verbStem(word, isWord);
    const plain = pluralStems(word);
    for (const stem of verb === undefined ? plain : [...plain, verb])
      for (const kind of listed.get(stem) ?? []) kinds.add(kind);
    // An -s form is a plural or a verb's; the verb's activity is often listed by its -ing form
    // ("runs", "knits" for "running", "knitting").
    const activityKinds = new Set<number>();
    for (const gerund of plain.flatMap(gerunds))
      for (const kind of listed.get(gerund) ?? [])
        if (!kinds.has(kind)) (activitiesApart ? activityKinds : kinds).add(kind);
    return { kinds, activityKinds };
  };
}

/** Candidate singulars (or bare verbs) of an -s form, by the regular English rules. */
function pluralStems(word: string): string[] {
  if (word.length < 4 || !word.endsWith('s') || word.endsWith('ss')) return [];
  if (word.endsWith('ies')) return [`${word.slice(0, -3)}y`];
  if (/(?:s|x|z|ch|sh)es$/.test(word)) return [word.slice(0, -2)];
  return [word.slice(0, -1)];
}

/**
 * The bare verb of an -ing or -ed form, the first that is a word of: the stem with an e restored
 * ("caring" is "care", not "car"), the stem itself, the stem with a doubled consonant undone.
 */
function verbStem(word: string, isWord: (word: string) => boolean): string | undefined {
  const suffix = /(?:ing|ed)$/.exec(word)?.[0];
  if (suffix === undefined || word.length < suffix.length + 3) return undefined;
  const stem = word.slice(0, -suffix.length);
  const undoubled = /([b-df-hj-np-tv-z])\1$/.test(stem) ? [stem.slice(0, -1)] : [];
  return [`${stem}e`, stem, ...undoubled].find(isWord);
}

/** The -ing forms a bare English verb may take (a dictionary gloss "to run" names "running"). */
function gerunds(verb: string): string[] {
  if (verb.length < 3) return [];
  const forms = [`${verb}ing`, `${verb}${verb.at(-1)}ing`];
  if (verb.endsWith('e')) forms.push(`${verb.slice(0, -1)}ing`);
  return forms;
}

function anchorSynsets(anchors: string, wordNet: WordNetNouns | undefined): Set<number> {
  const synsets = new Set<number>();
  for (const anchor of anchors.split(' ').filter((a) => a !== '')) {
    const [lemma, sense] = anchor.split('#');
    const synset = wordNet?.synset(lemma as string, Number(sense));
    if (synset === undefined) throw new Error(`WordNet has no noun sense ${anchor}`);
    synsets.add(synset);
  }
  return synsets;
}

export function encodeAnswerKinds(kinds: AnswerKinds): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(kinds));
}

/** The cached file read back as an index; a file that is not one is a WordTableFormatError (derived again). */
export function decodeAnswerKinds(bytes: Uint8Array): AnswerTypeIndex {
  let parsed: AnswerKinds;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes)) as AnswerKinds;
  } catch (error) {
    throw new WordTableFormatError('answer kinds file is not JSON', { cause: error });
  }
  if (!Array.isArray(parsed?.centroids) || typeof parsed.words !== 'object' || parsed.words === null) {
    throw new WordTableFormatError('answer kinds file has no centroids or words');
  }
  const centroids = parsed.centroids.map((c) => Float32Array.from(c));
  const byWord = (words: Record<string, number[]>) => {
    const index = new Map<string, Float32Array[]>();
    for (const [word, kinds] of Object.entries(words)) {
      const list = kinds.map((k) => centroids[k]);
      if (list.some((c) => c === undefined))
        throw new WordTableFormatError(`answer kinds of "${word}" name no centroid`);
      index.set(word, list as Float32Array[]);
    }
    return index;
  };
  return {
    kinds: byWord(parsed.words),
    activities: byWord(parsed.activities ?? {}),
    commonNouns: new Set(parsed.commonNouns ?? []),
  };
}
