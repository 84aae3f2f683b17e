import { l2Normalise } from '../vector.ts';
import { featureHash } from './feature-hash.ts';
import { type WordTable, WordTableFormatError } from './word-vectors/word-table.ts';

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

/** Names the kind definitions above: a derived file made from other definitions is not used. */
export const ANSWER_KINDS_FINGERPRINT = featureHash(JSON.stringify([ANSWER_TYPES, MEMBERSHIP_COSINE])).toString(36);

/** Word → the centroids of the answer kinds it cues or is an instance of (unit length). */
export type AnswerTypeIndex = ReadonlyMap<string, readonly Float32Array[]>;

/** What is derived once and cached: the kinds' centroids and, per word, the kinds it belongs to. */
export interface AnswerKinds {
  centroids: number[][];
  words: Record<string, number[]>;
}

/**
 * Scans every word of `table` against each kind's centroid (≈ 10⁸ multiplications: done when the
 * tables are derived, not per process). A Chinese word belongs to the kinds of its English glosses.
 */
export function deriveAnswerKinds(table: WordTable, chineseGlosses: Readonly<Record<string, string[]>>): AnswerKinds {
  const words = new Map<string, Set<number>>();
  const add = (word: string, kind: number) => {
    const set = words.get(word) ?? new Set<number>();
    set.add(kind);
    words.set(word, set);
  };
  const d = table.dimension;
  const unit = new Float32Array(d);
  const centroids = Object.values(ANSWER_TYPES).map((type, kind) => {
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
  const cosines = new Float64Array(centroids.length);
  for (let rank = 0; rank < table.size; rank++) {
    table.cosinesTo(rank, centroids, cosines);
    for (let kind = 0; kind < centroids.length; kind++) {
      if ((cosines[kind] as number) >= MEMBERSHIP_COSINE) add(table.words[rank] as string, kind);
    }
  }
  for (const [chinese, glosses] of Object.entries(chineseGlosses)) {
    for (const gloss of glosses) for (const kind of words.get(gloss) ?? []) add(chinese, kind);
  }
  return {
    centroids: centroids.map((c) => Array.from(c)),
    words: Object.fromEntries([...words].map(([word, kinds]) => [word, [...kinds].sort((a, b) => a - b)])),
  };
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
  const index = new Map<string, Float32Array[]>();
  for (const [word, kinds] of Object.entries(parsed.words)) {
    const list = kinds.map((k) => centroids[k]);
    if (list.some((c) => c === undefined)) throw new WordTableFormatError(`answer kinds of "${word}" name no centroid`);
    index.set(word, list as Float32Array[]);
  }
  return index;
}
