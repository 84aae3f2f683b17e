/**
 * One person's facts and a question that shares no word with the fact answering it: builtin-v2
 * (lexical only) ranks another fact first, builtin-v3 and later (word vectors) the right one.
 */
export const MAYA_FACTS = [
  'Maya is learning to play the cello.',
  'Maya studied architecture at university.',
  'Maya has two cats named Miso and Tofu.',
  'Maya runs five kilometres every morning.',
  'Maya is saving money to buy a house next year.',
  'Maya drives an old red Volvo.',
  'Maya is terrified of flying.',
];
export const PARAPHRASED_QUESTION = 'Is she nervous on airplanes?';
export const PARAPHRASED_ANSWER = 'Maya is terrified of flying.';
