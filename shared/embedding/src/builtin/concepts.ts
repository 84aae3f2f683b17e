import { analyzeText } from '@hindsight/text';

/**
 * A small hand-written thesaurus of everyday topics. A word in a group also adds the group's
 * feature, so "cook" meets "recipe" and "mom" meets "family" although they share no stem. It is
 * general knowledge about conversation topics, not tuned to any dataset; a word may sit in
 * several groups. Kept small on purpose: broad groups blur everything together.
 */
const GROUPS: Record<string, string> = {
  food: 'food cook cooking recipe recipes dish dishes meal dinner lunch breakfast eat ate eating restaurant cuisine bake baking kitchen snack dessert pasta pizza sushi chef taste tasty delicious',
  drink: 'drink drinks coffee tea beer wine cocktail juice bar',
  family:
    'family mom mother mum dad father parents parent sister brother sibling siblings son daughter kids children child grandma grandmother grandpa grandfather aunt uncle cousin wife husband',
  friends: 'friend friends buddy bestie roommate classmate',
  romance: 'girlfriend boyfriend partner date dating relationship married marriage wedding fiance fiancee crush',
  work: 'work job career office boss colleague coworker coworkers manager company internship intern salary shift hired interview promotion business client clients',
  study:
    'study school university college class classes course courses exam exams major degree student freshman sophomore semester professor teacher homework graduate graduation campus lecture',
  travel:
    'travel trip trips vacation holiday visit visited visiting flight fly flew airport abroad country countries city cities tour tourist hotel beach',
  home: 'home house apartment live living lived move moved moving rent neighborhood room roommate',
  sport:
    'sport sports gym workout exercise training train fitness run running marathon soccer football basketball tennis swim swimming yoga hike hiking ski skiing bike cycling athletic match team',
  music: 'music song songs band concert album guitar piano sing singing singer playlist listen',
  screen: 'movie movies film films show shows series netflix watch watching episode cinema tv anime',
  reading: 'book books read reading novel novels author library story',
  games: 'game games gaming videogame videogames console playstation xbox nintendo play played playing',
  art: 'art paint painting draw drawing photo photos photography camera design museum craft',
  pets: 'pet pets dog dogs puppy cat cats kitten animal animals',
  health:
    'health sick ill illness doctor hospital medicine pain injury surgery therapy allergy allergic diet sleep tired',
  feelings: 'happy sad stress stressed anxious anxiety excited nervous angry upset lonely worried proud',
  money: 'money buy bought pay paid price cost expensive cheap save saving budget spend shopping shop store',
  transport: 'car drive driving bus train subway bike commute traffic',
  weather: 'weather rain raining snow snowing sunny cold hot warm winter summer spring autumn fall',
  celebration:
    'birthday party celebrate celebration christmas thanksgiving new year eve holiday holidays festival gift gifts fireworks',
  religion: 'religion church mosque temple pray prayer god faith ramadan eid',
  hobby: 'hobby hobbies enjoy fun pastime free time weekend interest interests passion',
  language: 'language languages speak speaking english spanish french german chinese arabic translate',
  nature: 'nature park garden outdoors mountain mountains lake forest sea ocean river camping',
};

/** Stemmed word → the groups it belongs to. */
export function buildConceptIndex(): ReadonlyMap<string, readonly string[]> {
  const index = new Map<string, string[]>();
  for (const [group, words] of Object.entries(GROUPS)) {
    for (const word of words.split(' ')) {
      const term = analyzeText(word).find((t) => !t.stop)?.term;
      if (term === undefined) continue;
      const groups = index.get(term) ?? [];
      if (!groups.includes(group)) groups.push(group);
      index.set(term, groups);
    }
  }
  return index;
}
