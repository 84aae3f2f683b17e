/**
 * The built-in models by name: `builtin-v11` (default: v10 with stand-ins for the words its table
 * lacks — a compound's parts, a singular, a medicine's class — and phrases for a partner one is seeing, an
 * operation, a trip at a time), `builtin-v10` (v9 with faith and charity-work answer kinds and the phrases
 * that ask for or state an age, a home, a commute, free time or a partner), `builtin-v9` (v8 with WordNet's derived forms of listed
 * words, activity verbs taken back by an object, names not read as the things they name),
 * `builtin-v8` (v7 with seven more answer kinds, inflections
 * of listed words and more question phrases), `builtin-v7` (v6 with the light verbs left out of the
 * word-vector block), `builtin-v6` (v5 with birthday, education, residence,
 * pastime and smoking answer kinds), `builtin-v5` (v4 with more answer kinds, their members also
 * found under WordNet hypernyms), `builtin-v4` (v3 + answer kinds + Chinese word vectors),
 * `builtin-v3` (word vectors + lexical), `builtin-v2` (lexical only).
 */
export const BUILTIN_MODELS = [
  'builtin-v11',
  'builtin-v10',
  'builtin-v9',
  'builtin-v8',
  'builtin-v7',
  'builtin-v6',
  'builtin-v5',
  'builtin-v4',
  'builtin-v3',
  'builtin-v2',
] as const;
export type BuiltinModel = (typeof BUILTIN_MODELS)[number];

export function isBuiltinModel(name: string): name is BuiltinModel {
  return (BUILTIN_MODELS as readonly string[]).includes(name);
}
