/**
 * English function words (pronouns, auxiliaries, articles, prepositions, question words) and
 * a few chat fillers. They carry no topic, so neither the keyword index nor the built-in
 * embedder spends weight on them. Negations ("not", "no", "never") are stop words here too:
 * contradiction detection works on the raw text, not on these terms.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
    'once only or other our ours ourselves out over own same shall she should so some such than that the their theirs ' +
    'them themselves then there these they this those through to too under until up very was we were what when where ' +
    'which while who whom why will with would you your yours yourself yourselves ' +
    // contraction halves and chat fillers
    'll re ve d s t m im ive id youre dont didnt doesnt cant wont isnt wasnt arent oh ok okay yeah yes yep hey hi ' +
    'hello lol haha hahaha hmm um uh also still even really much many may might must us let lets get got'
  ).split(' '),
);

/** Chinese function characters; dropped as single characters but kept inside bigrams. */
export const CJK_STOP_CHARS: ReadonlySet<string> = new Set([...'的了是在和也就都吗呢吧啊呀么着过']);
