import { analyzeText, CJK_STOP_CHARS } from '@hindsight/text';

/**
 * What a memory says, as far as deciding "is this about the same thing?" needs: who it is about,
 * which attribute, which value, and whether it affirms or denies. English and Chinese.
 *
 * Terms are `analyzeText` stems (English) or Han characters and character pairs (Chinese). The
 * analysis never uses embeddings: two facts of the same sentence shape about different attributes
 * can be close in any vector space, so the rules decide on the words.
 */
export interface Statement {
  text: string;
  /** No content words at all ("ok", "hello", "?", an emoji, a lone quote). */
  contentFree: boolean;
  /** The attribute and value words: content terms minus owner, polarity and change cues, generic verbs, time words. */
  topic: ReadonlySet<string>;
  /**
   * One entry per clause: its topic terms, whether it denies them, and the terms of what it denies
   * (those after the denial: "膝盖受伤以后就不 | 打篮球了", "I've given up | coffee completely").
   */
  /** `when`: the occasions a clause names ("on Fridays", "周末"), which its topic leaves out. */
  clauses: ReadonlyArray<{
    topic: ReadonlySet<string>;
    negative: boolean;
    denied: ReadonlySet<string>;
    when: ReadonlySet<string>;
  }>;
  /** Says something changed ("no longer", "switched", "moved", "now", "不再", "搬到"). */
  changed: boolean;
  /** States a choice among options ("prefers aisle seats", "更喜欢…"). */
  prefers: boolean;
  /** A plan, wish or question rather than a fact ("wants to quit", "might move", "?"). */
  tentative: boolean;
  /** The relative the statement is about ("Maria's daughter", "我女儿"), when not the owner. */
  relative: string | null;
  /** "<owner>'s <key> is <value>", "my <key> is <value>", "我的<key>是<value>". */
  keyValue: { key: ReadonlySet<string>; value: ReadonlySet<string> } | null;
  /**
   * Single-valued attributes the statement sets (where one lives, works, is married …), by name; one
   * said of a relative is named for them ("has a son who works at Google": `employer@son`).
   */
  frames: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * How the residence frame is set: by a move ("moved to England", "从长沙搬到了深圳"), naming a
   * home ("lives in a terraced house in Headingley", "住在南山区的一套两居室里"), and whether the
   * move is dated in a past year ("in 2012", "2015年"): a life story more than a change.
   */
  residence: { moved: boolean; home: boolean; dated: boolean } | null;
  /** The value it says changed away from ("from Berlin", "left Siemens", "sold his Toyota"). */
  from: ReadonlySet<string>;
  /** Says a relationship ended ("broke up with Ian", "is divorced", "和小李分手了"). */
  ended: boolean;
  /** The terms of a named pet or animal it says died ("Biscuit died in May", "豆豆去年走了"). */
  died: ReadonlySet<string>;
  /** Says the owner keeps or has something ("has a corgi called Biscuit", "养了一只柯基"). */
  keeps: boolean;
  /** The extractor's slot (`metadata.key`), the question it answers, its short answer and the answer it takes back. */
  key: string | null;
  query: string | null;
  answer: string | null;
  replaces: string | null;
}

export interface StatementHints {
  key?: string | null;
  query?: string | null;
  answer?: string | null;
  replaces?: string | null;
}

const HAN = /\p{Script=Han}/u;

export function analyseStatement(text: string, hints: StatementHints = {}): Statement {
  const normalised = text.normalize('NFKC');
  const analysis = HAN.test(normalised) ? analyseChinese(normalised) : analyseEnglish(normalised);
  return {
    text,
    ...analysis,
    key: hints.key?.trim().toLowerCase() || null,
    query: hints.query ? normaliseQuestion(hints.query) : null,
    answer: hints.answer ? normaliseAnswer(hints.answer) : null,
    replaces: hints.replaces ? normaliseAnswer(hints.replaces) : null,
  };
}

/** An extractor's short answer, compared case-, space- and punctuation-blind. */
function normaliseAnswer(answer: string): string | null {
  const normalised = answer
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return normalised === '' ? null : normalised;
}

/** True when a text carries at least one content word (not only fillers, punctuation or emoji). */
export function hasContentWords(text: string): boolean {
  return !analyseStatement(text).contentFree;
}

type Analysis = Omit<Statement, 'text' | 'key' | 'query' | 'answer' | 'replaces'>;

function normaliseQuestion(question: string): string {
  return analyzeText(question)
    .filter((t) => !t.stop)
    .map((t) => t.term)
    .join(' ');
}

const words = (list: string) => list.trim().split(/\s+/);
const stems = (list: string) => new Set(words(list).flatMap((w) => analyzeText(w).map((t) => t.term)));

// ---------------------------------------------------------------------------------------------
// English

/** Courtesy and filler words: a text made only of these says nothing to remember. */
const FILLERS_EN = stems(
  'ok okay thanks thank please sure great cool nice good fine alright bye goodbye welcome yep nope yes no hmm wow right',
);

/** Words that deny the clause they are in. */
const NEGATION_EN =
  /\b(?:not|no|never|none|nor|nobody|nothing|neither|cannot|dislikes?|disliked|hates?|hated|quit|quits|quitting|stopped|stops|avoids?|avoided|gave up|give up|given up|giving up|can't stand|cant stand|no longer|any ?more|no more|cut out|ditched|dropped|broke up|broken up|split up|got rid of|left (?:his|her|their|my|the|a) job|shaved off|shaved (?:his|her|their|my) (?:beard|moustache|mustache|goatee) off)\b|n't\b|(?<!\b(?:got|get|gets|getting|am|is|are|be|been|'m|'re)\s)\bused to\b/i;

/** Words that say something changed since an earlier statement. */
const CHANGE_EN =
  /\b(?:no longer|any ?more|no more|switched|switching|switch|changed|moved|moving|relocated|relocating|instead|now|nowadays|these days|from now on|used to|became|become|becomes|turned|started|began|quit|quits|stopped|gave up|left|sold|joined|took up|actually|got)\b/i;

/** Plans, wishes, doubts and questions do not change what is true. */
const TENTATIVE_EN =
  /\b(?:wants? to|wanted to|would like to|'d like to|trying to|tries to|try to|plans? to|planning to|thinking (?:about|of)|considering|might|(?<!\b(?:in|since|until|last|next|early|late|mid|of|by|this)\s)may|maybe|perhaps|hopes? to|hoping to|intends? to|if)\b|\b(?:am|is|are|'m|'re|'s)\s+(?:not\s+)?going to\s+(?!the\b|an?\b|my\b|his\b|her\b|their\b|our\b|school\b|work\b|church\b|bed\b|class\b)\w+|\?\s*$/i;

/**
 * Terms that carry polarity, change, sentiment or a generic action rather than an attribute: they
 * are left out of the topic ("likes coffee" and "has quit coffee" are both about coffee).
 */
const CUE_TERMS_EN = stems(`
  not no never none nor nobody nothing neither cannot dislike dislikes disliked hate hates hated quit quits quitting
  stopped stop stops avoid avoids avoided gave give given giving stand longer anymore more cut ditched dropped
  broke broken split rid shaved
  switched switching switch changed change moved moving move relocated relocating instead now nowadays days
  used became become becomes turned turn started start began begin took take left sold joined actually got get gets
  like likes liked love loves loved enjoy enjoys enjoyed prefer prefers preferred fan fond keen really especially
  want wants wanted would trying tries try plan plans planning thinking considering might maybe perhaps hope hopes
  hoping going intend intends
  is are was were be been being am has have had having does do did doing go goes went gone make makes made
  drink drinks drank drinking eat eats ate eating play plays played playing use uses used using
  also too still just even completely totally entirely altogether fully`);

/** Time and frequency words: when, not what. */
/** Occasions a habit is said of: a day, a part of the day or week, a season (not a month: "since March"). */
const OCCASION_TERMS_EN = stems(`
  monday tuesday wednesday thursday friday saturday sunday weekend weekends weekday weekdays morning mornings
  afternoon afternoons evening evenings night nights lunchtime summer winter`);
const OCCASIONS_ZH =
  /周[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|工作日|早上|早晨|上午|中午|下午|晚上|夜里|夏天|冬天|春天|秋天/gu;

function occasionsEnglish(clause: string): Set<string> {
  return new Set(analyzeText(clause).flatMap((t) => (OCCASION_TERMS_EN.has(t.term) ? [t.term] : [])));
}

const TIME_TERMS_EN = stems(`
  today yesterday tomorrow tonight currently recently lately ago since every each daily weekly monthly yearly
  always usually often sometimes rarely occasionally once twice day week weekend month year morning afternoon
  evening night last next this year years weeks months summer winter spring autumn
  monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
  september october november december`);

/** Relatives and pets: "Priya's daughter is allergic" is not about Priya. */
const RELATIVES_EN = new Set(
  words(`daughter daughters son sons husband wife partner boyfriend girlfriend fiance fiancee mother mom mum father
  dad parents sister sisters brother brothers friend friends boss manager colleague colleagues coworker neighbour
  neighbor kid kids child children baby cousin aunt uncle grandma grandpa grandmother grandfather nephew niece
  dog cat puppy kitten pet roommate flatmate team mate pal buddy bestie bff ex ex-husband ex-wife ex-boyfriend ex-girlfriend ex-partner`),
);

const OWNER_WORDS_EN = new Set(words('i me my mine we our he him his she her they them their user customer person'));

/** Professions, for "X is a teacher" (an occupation) as against "X is a night owl" (a trait). */
const PROFESSIONS_EN_WORDS = `
  teacher nurse doctor physician surgeon dentist engineer developer programmer designer architect lawyer attorney
  accountant carpenter plumber electrician chef cook baker waiter waitress barista cashier clerk driver pilot
  student researcher scientist professor lecturer tutor manager consultant analyst journalist writer author editor
  artist musician photographer farmer mechanic pharmacist therapist psychologist vet veterinarian firefighter
  officer soldier police policeman salesman realtor entrepreneur founder ceo cto intern librarian translator
  retired unemployed freelancer midwife paramedic hairdresser barber cleaner banker broker trader economist
  statistician optician surveyor sailor fisherman butcher tailor receptionist secretary janitor caretaker gardener
  coach instructor trainer nanny carer caregiver counsellor counselor dietitian nutritionist physiotherapist physio
  radiologist paediatrician pediatrician actor actress singer dancer bartender courier postman mailman chemist
  biologist physicist mathematician illustrator animator copywriter recruiter paralegal judge diplomat rep
  representative salesperson saleswoman technician welder builder labourer laborer tiler plasterer roofer
  bricklayer decorator foreman administrator signalman guard conductor dispatcher operator porter steward
  stewardess attendant lorry trucker miner shepherd ranger warden`;
const PROFESSIONS_EN = stems(PROFESSIONS_EN_WORDS);
const PROFESSION_WORDS_EN = words(PROFESSIONS_EN_WORDS);

/** Keys whose value is the owner's occupation: "my job is …", "her profession is …". */
const JOB_KEYS_EN = new Set(
  analyzeText('job occupation profession career work role position title').map((t) => t.term),
);

/**
 * Words before a profession noun that make it a pastime, a role on the side or a judgement ("a keen
 * gardener", "a volunteer firefighter", "a part-time barista", "a terrible cook"): not one's occupation.
 */
const PASTIME_EN =
  /^(?:(?:a|an|the|now|still|also|such)\s+)*(?:keen|avid|amateur|passionate|enthusiastic|big|huge|great|good|decent|terrible|bad|talented|aspiring|hobby|weekend|self-taught|home|budding|wannabe|natural|volunteer|voluntary|unpaid|part-time|occasional)\b/i;

/** A diet or marital status as what the owner is or became, not a word in passing ("a vegan restaurant"). */
const DIET_EN =
  /\b(?:is|am|are|was|were|been|went|gone|turned|became|become|becomes|stays?|stayed|eats?|ate|'m|'s)\s+(?:now\s+|no longer\s+|not\s+|still\s+|also\s+|fully\s+|strictly\s+|mostly\s+|an?\s+)*(vegetarian|vegan|pescatarian|keto)\b|^(?:vegetarian|vegan|pescatarian)\b/i;
/** Eating meat is the end of a vegetarian or vegan diet. */
const MEAT_EN = /\b(?:eats?|ate|eating|eat)\s+(?:red\s+|white\s+)?(?:meat|chicken|beef|pork)\b/i;
/**
 * Going back to fish ends a vegetarian or vegan diet: "started eating fish again". Only as a
 * change — "eats fish on Fridays" says nothing about a diet.
 */
const EATING_AGAIN_EN =
  /\b(?:(?:started|starting|starts|began|begun|back to|went back to|gone back to|returned to)\s+(?:eating|having)\s+(?:red\s+|white\s+)?(fish|seafood|cheese|dairy|eggs|meat|chicken|beef|pork)|(?:eats?|ate|eating|having)\s+(?:red\s+|white\s+)?(fish|seafood|cheese|dairy|eggs|meat|chicken|beef|pork)\s+again)\b/i;
const EATING_AGAIN_ZH = /(?:开始|又|重新|恢复)(?:吃|喝)(鱼|海鲜|奶酪|芝士|鸡蛋|蛋|奶制品|乳制品|牛奶|肉)/u;
/** The diet a food taken up again says: fish ends a vegetarian diet, cheese or eggs a vegan one. */
function dietOfFood(food: string): string {
  if (/fish|seafood|鱼|海鲜/iu.test(food)) return 'pescatarian';
  if (/cheese|dairy|eggs|奶|芝士|蛋/iu.test(food)) return 'vegetarian';
  return 'omnivore';
}
const MARITAL_EN =
  /\b(?:is|am|are|was|were|got|get|gets|getting|became|'m|'s)\s+(?:now\s+|no longer\s+|not\s+|still\s+|recently\s+|happily\s+|just\s+)*(single|married|divorced|engaged|widowed|separated)\b/i;
/** A proposal accepted: "Marcus proposed on Saturday and I said yes!!" (engaged, in other words). */
const PROPOSAL_ACCEPTED_EN =
  /\bproposed\b[^.!?]*\b(?:i|she|he)\s+said\s+yes\b|\bpopped\s+the\s+question\b[^.!?]*\bsaid\s+yes\b/i;

/** An engagement called off: no longer engaged ("called off the engagement", "broke it off"). */
const ENGAGEMENT_OFF_EN =
  /\b(?:called|calling|broke|broken|breaking)\s+off\s+(?:the|their|his|her|our|my)\s+engagement\b|\bengagement\s+(?:is|was|has been)\s+(?:called|broken)\s+off\b/i;

/** British spellings read as American ones, so "favourite" and "favorite" are one key. */
const SPELLINGS_EN: ReadonlyArray<[RegExp, string]> = [
  [/\bfavourit/gi, 'favorit'],
  [/\bcolour/gi, 'color'],
  [/\bflavour/gi, 'flavor'],
  [/\bneighbour/gi, 'neighbor'],
  [/\bcentre\b/gi, 'center'],
  [/\btheatre\b/gi, 'theater'],
  [/\bgrey\b/gi, 'gray'],
  [/\bpyjamas\b/gi, 'pajamas'],
];

/** Frames: single-valued attributes and the phrases that set them; the value is what follows. */
/** Subjects one takes a degree in (a language or a craft studied at a named place may be a class). */
const DEGREE_SUBJECTS_EN =
  'history|economics|law|medicine|physics|chemistry|biology|biochemistry|maths|mathematics|math|engineering|(?:civil|mechanical|electrical|chemical|software)\\s+engineering|computer\\s+science|computing|psychology|philosophy|nursing|architecture|accounting|accountancy|business|business\\s+studies|management|finance|literature|english|english\\s+literature|sociology|politics|political\\s+science|geography|geology|anthropology|archaeology|classics|theology|dentistry|pharmacy|veterinary\\s+science|veterinary\\s+medicine|marketing|journalism|education|statistics|agriculture|zoology|ecology|neuroscience|linguistics|music|fine\\s+art|art\\s+history|graphic\\s+design|film\\s+studies|media\\s+studies|international\\s+relations|criminology|physiotherapy|midwifery|social\\s+work|hospitality|tourism';

const FRAMES_EN: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'residence', pattern: /\b(?:moved|moving|relocated|relocating)\s+from\s+.+?\s+to\s+(.+)/i },
  // "rents a one-bed flat in Leith": a home by its kind.
  {
    name: 'residence',
    pattern:
      /\b(?:rents?|renting|rented|owns?|owned|shares?|sharing)\s+(?:a|an|the|our|my|his|her|their)\s+(?:[\p{L}\d-]+\s+){0,3}?(?:flat|house|home|apartment|bungalow|cottage|room|studio|terrace|place|maisonette|semi)\s+in\s+(.+)/iu,
  },
  // "got the keys to the new place in Dunfermline": a new home.
  {
    name: 'residence',
    pattern:
      /\bgot\s+the\s+keys\s+(?:to|for)\s+(?:the|our|my)\s+(?:new\s+)?(?:place|flat|house|home|bungalow|cottage)\s+in\s+(.+)/i,
  },
  // "has moved in with us in Bristol": where the ones moved in with live.
  { name: 'residence', pattern: /\bmoved\s+in\s+with\s+(?:us|me|them|him|her)\s+(?:in|at)\s+(.+)/i },
  // The school one goes to: "goes to Riverside Primary", "moved to St Anne's school".
  {
    name: 'school',
    pattern:
      /\b(?:goes|go|going|went|moved|moving|switched|switching|transferred|changed)\s+(?:schools?\s+)?to\s+((?:[\p{Lu}][\p{L}'’.-]*\s+)+(?:[Pp]rimary|[Ss]econdary|School|Academy|High|College|Grammar|Elementary|Middle|Infants|Juniors)\b|[\p{Lu}][\p{L}'’.-]*(?:\s+[\p{Lu}][\p{L}'’.-]*)*\s+school\b)/u,
  },
  {
    name: 'residence',
    pattern:
      /\b(?:lives?|lived|living|resides?|resided|based|moved|moves|moving|relocated|relocating|relocates|settled)\b(?:\s+(?:back|away|house|abroad))?\s+(?:in|to|at)\s+(.+)/i,
  },
  {
    name: 'employer',
    pattern:
      /\b(?:works?|worked|working|employed|job)\s+(?:at|for|by)\s+(?!the\s+moment\b|present\b|night\b|nights\b|weekends?\b|the\s+weekends?\b|home\b|the\s+minute\b)(.+)/i,
  },
  // "I'm a warehouse supervisor at the Amazon depot": the title's place of work (a workplace
  // within an employer, "I work for the NHS" → "I'm a physio at the Royal Free", is no other employer).
  {
    name: 'workplace',
    pattern: new RegExp(
      `(?:\\b(?:[Ii]\\s+am|am|is|was)|['’]m|['’]s)\\s+(?:an?\\s+|the\\s+)?(?:[\\p{Ll}-]+\\s+){0,2}?(?:${[...PROFESSION_WORDS_EN, 'supervisor', 'assistant'].join('|')})s?\\s+(?:at|for|with)\\s+(?:the\\s+)?(\\p{Lu}.+)`,
      'u',
    ),
  },
  // "joined Stripe", not "joined a book club" or "joined the gym".
  {
    name: 'employer',
    pattern:
      /\b(?:[Jj]oined|[Jj]oins|[Jj]oining)\s+(?:the\s+)?(?![\p{L}\s]*\b(?:club|gym|group|choir|team|class|league|society|band|union|community|circle|course|party)\b)(\p{Lu}.*)/u,
  },
  { name: 'occupation', pattern: /\b(?:works?|worked|working|employed)\s+as\s+(?:an?\s+)?(.+)/i },
  // The team one plays for, named: "plays in goal for the Riverside Rovers" (not "plays for fun").
  {
    name: 'team',
    pattern:
      /\b(?:plays?|played|playing)\b(?:\s+[\p{Ll}-]+){0,3}?\s+for\s+(?:the\s+)?(\p{Lu}[\p{L}'’.&-]*(?:\s+\p{Lu}[\p{L}'’.&-]*)*)/u,
  },
  // The club one follows: "I support Leeds United", "switched allegiance to Bradford City".
  {
    name: 'supports',
    pattern:
      /\b(?:supports?|supporting|supported|switched\s+(?:my\s+)?allegiance\s+to|(?:a|an)\s+(?:big\s+|huge\s+|lifelong\s+)?fan\s+of)\s+(?:the\s+)?(\p{Lu}[\p{L}'’.&-]*(?:\s+\p{Lu}[\p{L}'’.&-]*)*)/u,
  },
  // A degree subject at a named place ("studying history at Exeter"), or a degree switched to one.
  {
    name: 'major',
    pattern: new RegExp(
      `\\b(?:studying|studies|studied|study|majoring\\s+in|majors?\\s+in|reading|doing\\s+(?:a\\s+degree|an?\\s+\\w+)\\s+in)\\s+((?:${DEGREE_SUBJECTS_EN})(?:\\s+and\\s+(?:${DEGREE_SUBJECTS_EN}))?)\\s+(?:at|in)\\s+(?:the\\s+)?\\p{Lu}`,
      'iu',
    ),
  },
  {
    name: 'major',
    pattern:
      /\b(?:switched|changed|moved|transferred|swapped)\s+(?:(?:my|his|her|their)\s+)?(?:degree|major|course|subject)\s+(?:over\s+)?(?:to|for)\s+([\p{L}\s-]+?)(?=\s+(?:at|in|from|after|this|last|when|because)\b|[.,;!]|$)/iu,
  },
  // A title one was promoted to, not a team or league ("promoted to the Premier League").
  {
    name: 'occupation',
    pattern:
      /\bpromoted\s+to\s+(?:an?\s+)?((?:[\w-]+\s+){0,3}?(?:manager|director|head|lead|chief|officer|partner|supervisor|vp|president|principal|editor|engineer|consultant|analyst|sergeant|lieutenant|captain|inspector|professor|associate|executive|coordinator))\b/i,
  },
  // "drives a Toyota", "drives Teslas" — not "drives to work", "drives my kids to school" or
  // "drove the van to Leeds" (a trip, not one's car).
  // "bought a Honda Civic": a car of a known make, bought (not "bought a Dyson").
  {
    name: 'car',
    pattern:
      /\b(?:bought|buys|buying|got|leased|leasing)\s+(?:a|an|my|his|her|their|our)\s+(?:(?:new|used|second-hand|secondhand|brand-new|old|electric)\s+)*((?:Toyota|Honda|Ford|Tesla|BMW|Audi|Volkswagen|VW|Mercedes|Nissan|Hyundai|Kia|Mazda|Subaru|Volvo|Skoda|Peugeot|Renault|Fiat|Jeep|Chevrolet|Chevy|Lexus|Porsche|Vauxhall|Citroen|Citroën|Dodge|Jaguar|Land Rover|Range Rover|Mitsubishi|Suzuki|Dacia|Polestar|Rivian|BYD|MG)\b(?:\s+[A-Z0-9][\w-]*)*)/i,
  },
  {
    name: 'car',
    pattern:
      /\b(?:[Dd]rives?|[Dd]rove|[Dd]riving)\s+(?:(?:[Aa]n?|[Tt]he|[Hh]is|[Hh]er|[Tt]heir|[Mm]y|[Oo]ur)\s+(?![a-z][\w\s-]*?\s(?:to|into|home|around|back|through)\b)(.+)|([A-Z].*))/,
  },
  {
    name: 'age',
    pattern:
      /\b(?:is|am|are|was|'s|'m)\s+(?:now\s+)?(\d{1,3})\s+(?:years?\s+old|yo)\b|\bturned\s+(\d{1,3})\b|\bage\s+(?:is\s+)?(\d{1,3})\b|\baged\s+(\d{1,3})\b|\b(?:is|am|'s|'m)\s+(?:now\s+|just\s+)?(\d{1,3})(?:\s+now)?\s*[.!]?$/i,
  },
  {
    name: 'weight',
    pattern:
      /\bweigh(?:s|ed|ing)?\s+(?:(?:about|around|roughly|now|only|just|over|under)\s+)*(\d+(?:[.,]\d+)?\s*(?:kg|kgs|kilos?|kilograms?|lbs?|pounds|stone)\b)/i,
  },
  {
    name: 'hair',
    pattern:
      /\b(blonde?|brown|black|red|gr[ae]y|white|blue|pink|purple|green|auburn|ginger|silver)\s+hair\b|\bhair\s+(?:is\s+|was\s+)?(?:now\s+)?(blonde?|brown|black|red|gr[ae]y|white|blue|pink|purple|green|auburn|ginger|silver)\b|\bdyed\s+\w+\s+hair\s+(\w+)/i,
  },
];

/** "has two cats" / "now has three cats": how many of something, one attribute per thing. */
const COUNT_EN =
  /\b(?:has|have|had|owns?|owned)\s+(?:now\s+|only\s+|just\s+)?(\d+|no|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+([a-z]+)/i;
/** A pet given away ("rehomed her cats", "狗送人了"): none any more ("不养猫了" is a denial, read as one). */
const PET_GONE_EN =
  /\b(?:gave away|given away|giving away|rehomed|re-homed)\s+(?:his|her|their|my|our)\s+(dogs?|cats?|rabbits?|hamsters?|parrots?|horses?|puppy|kitten)\b(?!['’])/i;
const PET_GONE_ZH = /(?:^|的|把)(狗|猫|兔子?)(?:[^，,。；;]{0,4})(?:送人|送走)了/u;
/** "养了两只猫", "有一个女儿"; a name and a colour or size before the thing are skipped ("养了一只叫“煤球”的黑猫", "一只小狗"). */
const COUNT_ZH =
  /(?:有|养了|养着|养)([一二两三四五六七八九十\d]+)(?:只|个|条|辆|套|位|台|匹|头)?(?:叫[“"「『]?[^，,。；;的]{1,8}?[”"」』]?的)?(?:[黑白黄橘灰花大小胖](?=\p{Script=Han}))?(\p{Script=Han})/u;
const HAN_NUMERALS: ReadonlyMap<string, string> = new Map<string, string>([
  ...[...'一二三四五六七八九十'].map((c, i): [string, string] => [c, String(i + 1)]),
  ['两', '2'],
]);

/**
 * A move at an age ("moved to England at twelve", "came to the UK as a child", "十二岁时搬到上海")
 * is a life story, not where one lives now: it sets no residence, so "lives in a terraced house"
 * stays.
 */
const BIOGRAPHICAL_MOVE_EN =
  /\b(?:moved|moving|relocated|emigrated|came)\b[^,;.!?]*?\b(?:at\s+(?:the\s+)?age\s+(?:of\s+)?\w+|at\s+(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty)\b(?!\s*(?:am|pm|a\.m|p\.m|o'clock))|as\s+an?\s+(?:child|kid|baby|toddler|teenager|teen|boy|girl|student)\b|when\s+(?:i|he|she|they|we)\s+(?:was|were)\s|when\s+(?:i|he|she|they|we)\s+(?:got\s+)?(?:married|wed|retired|graduated|divorced)\b)/i;
const BIOGRAPHICAL_MOVE_ZH = /(?:[\d一二三四五六七八九十两]+岁(?:那年|时|的时候)|小时候|童年时).{0,6}(?:搬|移居)/u;

/** A job changed or ended, its new employer unsaid ("changed jobs", "made redundant", "跳槽"). */
const EMPLOYER_CHANGED =
  /\b(?:changed|switched|new|quit|left|lost)\s+(?:\w+\s+)?jobs?\b|\b(?:handed|handing|put|putting)\s+in\s+(?:my|his|her|their)\s+notice\b|\bresigned\b|\b(?:made|been)\s+redundant\b|\blaid\s+off\b|\bout\s+of\s+work\b|\bbetween\s+jobs\b|下岗|失业|被裁|\bretired\s+(?:from|in|at|last|this|early|after)\b|\bretired\s*(?:[,.;!]|$)|退休了|退了休|换工作|换了工作|跳槽|辞职|离职|辞(?:掉|去)了?[^，,。；;]*?工作/i;

/** Phrases saying an attribute changed without naming the new value ("changed jobs", "换工作了"). */
const CHANGED_ATTRIBUTES: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'employer', pattern: EMPLOYER_CHANGED },
  // A job's end ends the workplace its title was at.
  { name: 'workplace', pattern: EMPLOYER_CHANGED },
  { name: 'residence', pattern: /\bmoved\s+(?:house|out|away|abroad)\b|搬家/i },
  // Retired or out of work: no occupation any more, whatever it was.
  {
    name: 'occupation',
    pattern:
      /\bretired\s+(?:from|in|at|last|this|early|after)\b|\bretired\s*(?:[,.;!]|$)|\b(?:stopped|quit)\s+working\b|\b(?:handed|handing)\s+in\s+(?:my|his|her|their)\s+notice\b|\b(?:made|been)\s+redundant\b|\blaid\s+off\b|\bout\s+of\s+work\b|退休了|退了休|下岗|失业|被裁/i,
  },
  {
    name: 'major',
    pattern: /\b(?:changed|switched)\s+(?:(?:my|his|her|their)\s+)?majors?\b|转专业|换专业|改专业|换了专业/i,
  },
  { name: 'school', pattern: /\b(?:changed|switched)\s+schools\b|\bdropped\s+out\b|转学|换了学校|退学|辍学/i },
  {
    name: 'team',
    pattern:
      /\b(?:changed|switched|swapped)\s+(?:\w+\s+)?(?:teams|clubs)\b|\bleft\s+the\s+team\b|换了?(?:球队|队)|转会/i,
  },
];

/**
 * Attributes whose value is one of a few known alternatives, named in either language: a computer
 * platform, a phone's system, whether one drinks or smokes. A frame holds the alternative a
 * statement affirms, so "switched to a Mac" meets "uses Windows" and "is teetotal" meets "drinks
 * alcohol". Alternatives are tried in order; the first that matches is the value.
 */
const ALTERNATIVES: ReadonlyArray<{ name: string; values: ReadonlyArray<[string, RegExp, Polarity?]> }> = [
  {
    name: 'computer',
    values: [
      ['windows', /\bWindows\b|微软系统/u],
      ['mac', /\b(?:Mac(?:Book)?|iMac|macOS)\b|苹果电脑/u],
      ['linux', /\b(?:linux|ubuntu|fedora|debian|arch linux)\b/iu],
      ['chromebook', /\bchromebook\b/iu],
    ],
  },
  {
    name: 'phone',
    values: [
      ['iphone', /\biphone\b|苹果手机/iu],
      [
        'android',
        /\bandroid\b|安卓|\b(?:Pixel|Galaxy|OnePlus)\b|(?:华为|小米|三星|oppo|vivo)手机|\b(?:samsung|huawei|xiaomi)\s+phone\b/iu,
      ],
    ],
  },
  {
    // The make of one's phone, said with a model or the word phone ("华为Mate 40", "小米14", "a Pixel 8").
    name: 'phone-make',
    values: [
      ['apple', /\biphone\b|苹果手机|苹果\s?\d{1,2}\b/iu],
      ['huawei', /华为(?:手机|\s?(?:Mate|P|nova|Pura)\s?\d*)|\bhuawei\s+(?:phone|mate|p\d)/iu],
      ['xiaomi', /小米(?:手机|\s?\d{1,2}\b|\s?(?:Note|Pro|Civi|MIX))|红米|\bredmi\b|\bxiaomi\b/iu],
      ['samsung', /三星(?:手机|\s?Galaxy)|\b(?:samsung\s+)?galaxy\s+[a-z]?\d/iu],
      ['google', /\bpixel\s?\d/iu],
      ['oppo', /\boppo\b/iu],
      ['vivo', /\bvivo\b/iu],
      ['honor', /荣耀(?:手机|\s?\d|\s?Magic)/iu],
      ['oneplus', /一加(?:手机|\s?\d)|\boneplus\b/iu],
    ],
  },
  {
    name: 'alcohol',
    values: [
      [
        'abstains',
        /\b(?:sober|teetotal|teetotall?er|tee-total|non-?drinker)\b|\b(?:doesn't|does not|don't|do not|never|no longer)\s+drinks?(?:\s+(?:alcohol|booze|at all))?(?:\s+(?:any ?more|now))?\s*(?:[.!,;]|$)|\b(?:stopped|quit|gave up|given up|giving up)\s+(?:drinking|alcohol|booze)\b|不喝酒|不再喝酒|戒酒|戒了酒|滴酒不沾|不沾酒/iu,
        'as-said',
      ],
      [
        'drinks',
        /\bdrinks?\s+(?:alcohol|wine|beer|whiske?y|spirits|booze|cocktails|gin|vodka|rum|sake)\b|\b(?:social drinker|drinks socially|heavy drinker)\b|\b(?:has|have|having|had|enjoys?|enjoyed)\s+(?:an?|the)\s+(?:(?:odd|occasional)\s+)?(?:(?:glass|pint|bottle|can|drop)\s+of\s+)?(?:wine|beer|whiske?y|cocktail|gin|vodka|rum|sake|cider|pint)\b|\b(?:started|starting|began|back to)\s+drinking(?:\s+again)?\s*(?:[.!,;]|$)|\bdrinking again\b|喝(?:[一二两三四五六七八九十半几\d]+[杯瓶口点两斤盅碗罐听])?(?:点|些)?[红白啤黄米]?酒|饮酒/iu,
      ],
    ],
  },
  {
    // Working from home (every day, not "on Fridays") or back in the office.
    name: 'workplace',
    values: [
      [
        'office',
        /\bback\s+(?:in|at|to)\s+the\s+office\b|\bin\s+the\s+office\s+(?:full[- ]time|every\s+day)\b|回(?:到)?办公室(?:上班|办公)|不再居家办公|不再远程办公/iu,
        'as-said',
      ],
      [
        'home',
        /\b(?:works?|worked|working)\s+(?:from|at)\s+home\b(?![^.,;]*\b(?:on\s+\w+days?|once|twice|days?\s+a\s+week|some\s+days|sometimes|occasionally)\b)|\bworks?\s+remotely\b|居家办公|远程办公|在家办公/iu,
      ],
    ],
  },
  {
    // In work or not: "out of work", "在家带孩子" against "back at work", "重新上班了".
    name: 'employment',
    values: [
      [
        'working',
        /\bback\s+(?:at|to|in)\s+work\b|\bworking\s+again\b|\bgot\s+a\s+(?:new\s+)?job\b|\bfound\s+(?:a\s+)?(?:new\s+)?(?:job|work)\b|重新上班|又上班了|回去上班|开始上班了|找到(?:了)?(?:新)?工作|重新工作/iu,
        'as-said',
      ],
      [
        'not-working',
        /\bout\s+of\s+work\b|\bunemployed\b|\bbetween\s+jobs\b|\bnot\s+working\s+(?:at\s+the\s+moment|right\s+now|now|any\s?more)\b|没(?:有)?上班|不上班了|没(?:有)?工作|失业|待业|在家带孩子|全职(?:妈妈|太太|主妇)/iu,
        'as-said',
      ],
    ],
  },
  {
    name: 'smoking',
    values: [
      [
        'abstains',
        /\bnon-?smoker\b|\b(?:doesn't|does not|don't|do not|never|no longer)\s+smokes?\b|\b(?:stopped|quit|gave up|given up|giving up)\s+(?:smoking|cigarettes)\b|\bwithout\s+(?:a\s+(?:single\s+)?)?(?:cigarette|smoke|fag)s?\b|\bsmoke-free\b|不抽烟|不吸烟|不再抽烟|戒烟|戒了烟|把烟戒(?:掉)?了/iu,
        'as-said',
      ],
      ['smokes', /\bsmokes?\b|\bsmoker\b|(?:抽|吸)(?:[一两几半\d]+[包根支盒条])?烟/iu],
    ],
  },
];

/**
 * `affirmed` (the default): the alternative holds only where the statement does not deny ("doesn't
 * use Windows" affirms no platform); `as-said`: the pattern already reads the denial ("never drinks").
 */
type Polarity = 'affirmed' | 'as-said';

/** Frames whose values already carry polarity: two different values contradict, whatever the negation words. */
export const ALTERNATIVE_FRAMES: ReadonlySet<string> = new Set(ALTERNATIVES.map((a) => a.name));

/** Sets the frames of the alternatives `text` affirms; one it says it left behind (`from`) is not affirmed. */
function markAlternatives(text: string, from: string, negative: boolean, frames: Map<string, Set<string>>): void {
  const gift = GIFT.test(text);
  for (const { name, values } of ALTERNATIVES) {
    if (frames.has(name) || (gift && DEVICES.has(name))) continue;
    const affirmed = values.find(
      ([, pattern, polarity = 'affirmed']) =>
        pattern.test(text) && !pattern.test(from) && (polarity === 'as-said' || !negative),
    )?.[0];
    if (affirmed !== undefined) frames.set(name, new Set([affirmed]));
  }
}

/** Alternatives that are things one has, not habits: one bought for someone else is theirs. */
const DEVICES: ReadonlySet<string> = new Set(['computer', 'phone', 'phone-make']);
/** Buying or giving something for someone else: "bought his mum a Pixel", "给妈妈买了一部华为手机". */
const GIFT =
  /\b(?:bought|buys?|buying|got|gets|getting|gave|gives?|giving|ordered|ordering)\s+(?:(?:my|his|her|their|our)\s+[\p{L}-]+|\p{Lu}[\p{L}'’-]*|him|her|them)\s+(?:an?|the|one|new)\b|\bfor\s+(?:(?:my|his|her|their|our)\s+(?:mum|mom|mother|dad|father|son|daughter|wife|husband|partner|sister|brother|kids?|children|parents|grandma|grandpa|friend|boss)|\p{Lu}[\p{L}'’-]*)(?:['’]s\s+birthday)?\s*(?:[.!,;]|$)|给[^，,。；;]{1,6}(?:买|换|送|挑)|送给/u;

/** Ending a relationship: the partner it was with is no longer one. */
const ENDED_EN =
  /\b(?:broke up|broken up|breaking up|split up|splits up|separated|divorced|divorcing|dumped|called it a day|called it quits|went (?:our|their) separate ways|left (?:his|her|their|my) (?:wife|husband|partner|boyfriend|girlfriend))\b/i;
const ENDED_ZH = /分手|离婚|分开了|离了婚/u;

/** Partners, in the words RELATIVES_EN and RELATIVES_ZH use. */
const PARTNERS_ZH = [
  '丈夫',
  '老公',
  '妻子',
  '老婆',
  '太太',
  '先生',
  '男朋友',
  '女朋友',
  '老伴儿',
  '老伴',
  '爱人',
  '媳妇儿',
  '媳妇',
];
export const PARTNERS: ReadonlySet<string> = new Set([
  'husband',
  'wife',
  'partner',
  'boyfriend',
  'girlfriend',
  'fiance',
  'fiancee',
  ...PARTNERS_ZH,
]);

/** A plan called off: "五一西藏自驾黄了", "the Japan trip is cancelled". */
export const CALLED_OFF =
  /黄了|取消了|泡汤了|去不成|不去了|计划搁浅|退赛|\b(?:cancell?ed|called\s+off|fell\s+through|is\s+off|are\s+off|scrapped|isn['’]t\s+happening|not\s+happening|won['’]t\s+be\s+going|withdrawn\s+from|withdrew\s+from|pulled\s+out\s+of|dropped\s+out\s+of)\b/iu;
/** A plan said as what will happen: "We're going to Crete in June", "training for the marathon", "国庆要去大理". */
export const PLANNED =
  /\b(?:going\s+to|will|['’]ll|are\s+going|['’]re\s+going|am\s+going|['’]m\s+going|training\s+for|booked|planning|signed\s+up\s+for|entered)\b|要去|准备|打算|计划|报了|报名/iu;

/** A partner named beside their word: "lives with her boyfriend Tom", "我跟男朋友阿杰住在一起". */
const PARTNER_NAMED_EN = /\b(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?)\s*,?\s+(\p{Lu}[\p{L}'’-]+)/u;
const PARTNER_NAMED_ZH = new RegExp(
  `(?:${PARTNERS_ZH.join('|')}|男友|女友|未婚夫|未婚妻)(\\p{Script=Han}{2,3}?)(?=住|在|一|是|的|和|跟|准备|打算|要|下个?月|今年|明年|年底|刚|已经|快|[，,。；;]|$)`,
  'u',
);

/** The name of a partner a statement names (about whomever it is), or null. */
export function partnerNamed(text: string): string | null {
  return PARTNER_NAMED_EN.exec(text)?.[1] ?? PARTNER_NAMED_ZH.exec(text)?.[1] ?? null;
}

/** Words that say which single-valued attribute a statement is about, in either language: how its neighbours are found. */
const ATTRIBUTE_WORDS: Readonly<Record<string, string>> = {
  residence: 'live lives lived living moved relocated based home 住 搬 定居 生活',
  employer: 'work works worked job employer company joined 工作 上班 任职 公司 加入 跳槽 辞职',
  occupation: 'work works job profession career 工作 职业',
  age: 'old age years turned 岁',
  supports: 'support supports supporter fan allegiance club 球迷 支持',
  diet: 'vegetarian vegan pescatarian meat chicken beef pork fish keto 素 肉 荤',
  marital: 'married single divorced engaged widowed separated 婚 单身',
  car: 'drive drives drove car 开 车',
  hair: 'hair 头发',
  weight: 'weigh weighs weight kg kilos pounds 体重 公斤',
  computer: 'windows mac macbook macos imac linux ubuntu chromebook computer laptop 电脑',
  phone: 'iphone android pixel galaxy phone 手机 安卓',
  'phone-make': 'iphone pixel galaxy phone 手机 华为 小米 苹果 三星 荣耀',
  school: 'school primary academy college 学校 小学 中学 初中 高中',
  major: 'major degree studies 专业 学',
  alcohol: 'drink drinks alcohol wine beer sober teetotal 酒',
  smoking: 'smoke smokes smoker smoking cigarettes 烟',
  workplace: 'work works office home remote 办公 居家',
  team: 'play plays played team club 队 球队',
};

/**
 * The words of the single-valued attributes a statement sets, and a test for another statement
 * setting one of them; null when it sets none.
 */
export function attributeCues(statement: Statement): { cues: string; setBy(other: Statement): boolean } | null {
  const names = [...statement.frames.keys()];
  if (names.length === 0) return null;
  const cues = names
    .map((name) => name.split('@')[0] ?? name)
    .map((name) => ATTRIBUTE_WORDS[name] ?? (name.startsWith('count:') ? name.slice('count:'.length) : ''))
    .join(' ')
    .trim();
  if (cues === '') return null;
  return { cues, setBy: (other) => names.some((name) => other.frames.has(name)) };
}

/**
 * The frames of a statement about a relative are the relative's, however the sentence puts them:
 * "Hamid's sister Yasmin is a nurse" and "Yasmin, Hamid's sister, now works as a developer" both
 * set `occupation@sister`, as "has a sister who is a nurse" does.
 */
function heldBy(frames: Map<string, Set<string>>, relative: string | null): Map<string, Set<string>> {
  if (relative === null) return frames;
  return new Map([...frames].map(([name, value]) => [name.includes('@') ? name : `${name}@${relative}`, value]));
}

/** A medicine's dose: "5 mg of amlodipine", "amlodipine 10mg", "upped the amlodipine to 10 mg", "优甲乐加到75微克". */
const DOSE_UNIT_EN = '(?:mg|mcg|µg|micrograms?|milligrams?|iu|units?|ml)\\b';
const DOSES_EN: ReadonlyArray<{ pattern: RegExp; medicine: number; dose: number }> = [
  {
    pattern: new RegExp(`(\\d+(?:\\.\\d+)?)\\s*${DOSE_UNIT_EN}\\s+(?:of\\s+)?([a-z][a-z-]{3,})`, 'iu'),
    dose: 1,
    medicine: 2,
  },
  {
    pattern: new RegExp(
      `\\b(?:upped|increased|raised|reduced|lowered|cut|dropped|changed|put)\\s+(?:me\\s+)?(?:up\\s+|down\\s+)?(?:my\\s+|the\\s+|his\\s+|her\\s+|their\\s+)?([a-z][a-z-]{3,})\\s+(?:dose\\s+)?(?:up\\s+|down\\s+)?to\\s+(\\d+(?:\\.\\d+)?)\\s*${DOSE_UNIT_EN}`,
      'iu',
    ),
    medicine: 1,
    dose: 2,
  },
  { pattern: new RegExp(`\\b([a-z][a-z-]{3,})\\s+(\\d+(?:\\.\\d+)?)\\s*${DOSE_UNIT_EN}`, 'iu'), medicine: 1, dose: 2 },
];
/** A dose changed without the medicine beside its amount: "GP has doubled my sertraline". */
const DOSE_CHANGED_EN =
  /\b(?:doubled|halved|tripled|upped|increased|reduced|lowered|decreased|cut)\s+(?:me\s+)?(?:my|the|his|her|their)\s+([a-z][a-z-]{3,})\b(?!\s+(?:dose|intake)\s+of)/iu;
const DOSE_UNIT_ZH = '(?:毫克|微克|mg|克|国际单位|IU|毫升|片|粒)';
const DOSES_ZH: ReadonlyArray<{ pattern: RegExp; medicine: number; dose: number }> = [
  {
    pattern: new RegExp(
      `([\\p{Script=Han}A-Za-z]{2,6}?)(?:的量|的剂量)?(?:已经)?(?:加到|加量到|减到|减量到|增加到|调到|调整到|改成|换成|降到|升到)了?(\\d+(?:\\.\\d+)?)\\s*${DOSE_UNIT_ZH}`,
      'u',
    ),
    medicine: 1,
    dose: 2,
  },
  {
    pattern: new RegExp(
      `(?:吃|服|服用|用|打)(?:[一二两三四五六七八九十\\d]+[片粒颗支针])?([\\p{Script=Han}A-Za-z]{2,6}?)[，,、\\s]*(?:每次|一次)?(\\d+(?:\\.\\d+)?)\\s*${DOSE_UNIT_ZH}`,
      'u',
    ),
    medicine: 1,
    dose: 2,
  },
];

/** The dose frame of a text (`dose:<medicine>` → the amount), if it states one. */
function doseFrame(
  text: string,
  doses: typeof DOSES_EN,
  medicineKey: (said: string) => string,
): [string, Set<string>] | null {
  for (const { pattern, medicine, dose } of doses) {
    const match = pattern.exec(text);
    const name = match?.[medicine];
    const amount = match?.[dose];
    if (name === undefined || amount === undefined) continue;
    const key = medicineKey(name);
    if (key !== '' && !DOSE_NOT_MEDICINE.test(name.toLowerCase())) return [`dose:${key}`, new Set([amount])];
  }
  return null;
}
/** Words a dose pattern may catch that name no medicine. */
const DOSE_NOT_MEDICINE =
  /^(?:every|each|daily|twice|once|morning|night|with|after|before|about|only|than|over|under|dose|take|takes|taking|tablet|pill|from|into|more|less)$/u;

/** A frame value meaning "changed, to something not said". */
export const CHANGED_VALUE = '\u0000changed';
/** The value of an attribute one has none of: "doesn't have a car", "我没有车". */
export const NO_VALUE = '\u0000none';
const NO_CAR =
  /\b(?:do(?:es)?n['’]t|do(?:es)? not|never)\s+(?:have|own)\s+(?:a\s+)?car\b|\bha(?:s|ve)\s+no\s+car\b|\bcar-free\b|没有车|没车|没买车/iu;

/** A child moved to another school by its parents: "we moved my son to St Anne's after half term". */
const CHILD_MOVED_EN =
  /\b(?:moved|switched|transferred|changed)\s+(?:my|our|his|her|their)\s+(son|daughter|kids?|child|children|boy|girl|twins)\s+(?:over\s+)?(?:to|into)\s+(.+?)(?=\s+(?:after|at|from|this|last|in|when)\b|$)/i;

/** Where a frame's value ends: the next clause or a qualifier that is not part of it. */
const VALUE_END_EN =
  /\s*(?:,|;|\.|!|\?|\band\b|\bbut\b|\bas\b|\bwith\b|\bsince\b|\bfor\b|\bbecause\b|\bwhere\b|\bwhich\b|\bwho\b|\bnear\b|\bnow\b|\bin\s+(?:19|20)\d\d\b)/i;

/** A change away from a value: what follows is the old value. */
/** Choosing one option over others: a new choice of the same thing replaces the old one. */
const PREFERS_EN = /\b(?:prefers?|preferred|favou?rs?|would rather)\b/i;
const PREFERS_ZH = /偏好|更喜欢|宁愿|更爱/u;

/** Where one clause ends and the next begins ("quit teaching | and is now a lawyer"). */
const CLAUSE_BREAK_EN =
  /[,;.!?]+|\s+(?:but|though|although|however|whereas|while)\s+|\s+and\s+(?=(?:is|are|was|were|has|have|had|now|then|also|still|joined|became|drives?|works?|lives?|moved|started|got|went|plays?|eats?|drinks?)\b)/i;

/** "the bakery job", "her position at Siemens": the job words around the place one left. */
const JOB_TERMS_EN = stems('job jobs position');

const FROM_EN =
  /\b(?:moved|moving|relocated|relocating|switched|switching|changed|changing|went|transferred|converted)\s+(?:back\s+|over\s+|away\s+)?from\s+(.+)|\b(?:left|leaving|sold|selling|quit|quitting|dropped|ditched|gave up on|given up on)\s+(.+)|\binstead of\s+(.+)|\b(?:trad(?:ed|ing|es?)|part[- ]exchang(?:ed|ing|es?)|swapp(?:ed|ing))\s+(?:in\s+)?((?:[\p{L}\d'’-]+\s+){0,3}?[\p{L}\d'’-]+)\s+(?:in\s+)?for\b|\b(?:the|my|our|his|her|their)\s+((?:[\p{L}\d'’-]+\s+){0,3}?[\p{L}\d'’-]+)\s+(?:is|are|has|have)\s+(?:gone|been sold|been given away)\b|\b(?:the|my|our|his|her|their)\s+((?:[\p{L}\d'’-]+\s+){0,2}?[\p{L}\d'’-]+)\s+(?:went|has\s+gone|is\s+going)\s+to\s+(?:a|an|some)\s+(?:bloke|guy|man|woman|lad|family|buyer|dealer|collector|neighbour|neighbor|mate|friend|couple)\b|\bprefers?\s+.+?\s+(?:over|rather than)\s+(.+)/iu;

const KEY_VALUE_EN = /^(.*?)\s*(\bis\b|\bare\b|\bwas\b|\bwere\b|\bequals\b|=|:)\s*(.+)$/i;
const POSSESSIVE =
  /^(?:(?:the\s+)?(?:user|customer|person)|[\p{Lu}][\p{L}'-]*(?:\s+[\p{Lu}][\p{L}'-]*)?)['’]s\s+(.+)$|^(?:my|his|her|their|our)\s+(.+)$/iu;

function termsOf(text: string, drop: ReadonlySet<string> = new Set()): Set<string> {
  return new Set(
    analyzeText(text).flatMap((t) =>
      t.stop || CUE_TERMS_EN.has(t.term) || TIME_TERMS_EN.has(t.term) || drop.has(t.term) ? [] : [t.term],
    ),
  );
}

function analyseEnglish(text: string): Analysis {
  const trimmed = SPELLINGS_EN.reduce((t, [from, to]) => t.replace(from, to), text.trim());
  const owners = ownerTermsEnglish(trimmed);
  const content = analyzeText(trimmed).filter((t) => !t.stop && !FILLERS_EN.has(t.term));
  const topic = termsOf(trimmed, owners);
  const relative = relativeEnglish(trimmed);
  const clauses = trimmed
    .split(CLAUSE_BREAK_EN)
    .filter((c) => c.trim() !== '')
    .map((clause) => {
      const denial = NEGATION_EN.exec(clause);
      const denied = denial ? termsOf(clause.slice(denial.index + denial[0].length), owners) : new Set<string>();
      return { topic: termsOf(clause, owners), negative: denial !== null, denied, when: occasionsEnglish(clause) };
    });
  const frames = new Map<string, Set<string>>();
  let residence: Statement['residence'] = null;
  const childMoved = CHILD_MOVED_EN.exec(trimmed);
  if (childMoved) {
    const school = termsOf((childMoved[2] ?? '').split(VALUE_END_EN)[0] ?? '', owners);
    if (school.size > 0) frames.set(`school@${(childMoved[1] ?? '').toLowerCase()}`, school);
  }
  for (const { name, pattern } of FRAMES_EN) {
    if (frames.has(name)) continue;
    const match = pattern.exec(trimmed);
    const value = firstGroup(match);
    if (match === null || value === undefined) continue;
    const valueText = value.split(VALUE_END_EN)[0] ?? '';
    const terms = termsOf(valueText, owners);
    if (terms.size === 0) continue;
    const before = trimmed.slice(0, match.index);
    // "My office moved to Potsdam", "drives my kids": a thing's attribute, or people carried.
    if (thingSubjectEnglish(before) || (name === 'car' && RELATIVES_EN.has(headNoun(valueText)))) continue;
    // "moved to St Anne's school": the school one goes to, not a home.
    if (name === 'residence' && /\b(?:school|primary|academy|college|university)\b/i.test(valueText)) continue;
    // "based at their Charlotte Street office": where one works, not where one lives.
    if (name === 'residence' && /^based\b/i.test(match[0]) && WORKPLACE_EN.test(valueText)) continue;
    // "to visit Huia, who moved to Australia": another person's attribute, not the owner's.
    if (OTHER_PERSON_CLAUSE_EN.test(before)) continue;
    // "She split from Thabo; he drives a minibus taxi": a later clause about someone else.
    if (otherPronounSubject(trimmed, before)) continue;
    // "has a son who works at Google", "her daughter is 5": the relative's attribute, not the owner's.
    const holder = holderEnglish(before);
    frames.set(holder ? `${name}@${holder}` : name, terms);
    if (name === 'residence' && !holder) {
      residence = {
        moved: MOVE_EN.test(match[0]),
        home: HOME_EN.test(valueText),
        dated: /\bin\s+(?:19|20)\d\d\b/.test(trimmed),
      };
    }
  }
  if (BIOGRAPHICAL_MOVE_EN.test(trimmed)) {
    frames.delete('residence');
    residence = null;
  }
  markChangedAttributes(trimmed, frames, (before) => changeHolderEnglish(trimmed, before));
  const petGone = PET_GONE_EN.exec(trimmed)?.[1];
  const pet = petGone === undefined ? undefined : analyzeText(petGone)[0]?.term;
  if (pet) frames.set(`count:${pet}`, new Set(['0']));
  const counted = COUNT_EN.exec(trimmed);
  if (counted) {
    const thing = analyzeText(counted[2] ?? '')[0]?.term;
    const howMany = counted[1]?.toLowerCase() === 'no' ? '0' : analyzeText(counted[1] ?? '')[0]?.term;
    if (thing && howMany && !frames.has(`count:${thing}`)) frames.set(`count:${thing}`, new Set([howMany]));
  }
  const predicateText = predicateEnglish(trimmed);
  // "a keen gardener", "an amateur photographer": what one does for love, not for a living.
  const pastime = PASTIME_EN.test(predicateText);
  // A profession is named by a noun: "loves gardening" and "is into farming" are pastimes, whose
  // stems ("garden", "farm") are professions' stems.
  const predicate = termsOf(withoutGerunds(predicateText), owners);
  // "My favourite TV show is the police drama …": the predicate says what a thing of the owner's is.
  const keyValue = keyValueEnglish(trimmed, owners);
  const aboutAThing = keyValue !== null && relative === null && ![...keyValue.key].some((k) => JOB_KEYS_EN.has(k));
  const occupation =
    pastime || aboutAThing || !headedByNoun(predicateText) ? [] : [...predicate].filter((t) => PROFESSIONS_EN.has(t));
  if (!frames.has('occupation') && occupation.length > 0) frames.set('occupation', new Set(occupation));
  // "does not eat pork" is a food one avoids, not the end of a vegetarian diet.
  const eatsMeat = MEAT_EN.test(trimmed) && !NEGATION_EN.test(trimmed);
  const eatenAgain = NEGATION_EN.test(trimmed) ? undefined : firstGroup(EATING_AGAIN_EN.exec(trimmed));
  const diet =
    DIET_EN.exec(trimmed)?.[1] ??
    (eatsMeat ? 'omnivore' : undefined) ??
    (eatenAgain === undefined ? undefined : dietOfFood(eatenAgain));
  if (diet) frames.set('diet', new Set([diet.toLowerCase()]));
  if (!frames.has('car') && NO_CAR.test(trimmed)) frames.set('car', new Set([NO_VALUE]));
  const dose = doseFrame(trimmed, DOSES_EN, (said) => analyzeText(said)[0]?.term ?? '');
  if (dose) frames.set(dose[0], dose[1]);
  const doseChanged = DOSE_CHANGED_EN.exec(trimmed)?.[1];
  const changedMedicine = doseChanged === undefined ? '' : (analyzeText(doseChanged)[0]?.term ?? '');
  if (!dose && changedMedicine !== '' && !DOSE_NOT_MEDICINE.test((doseChanged ?? '').toLowerCase())) {
    frames.set(`dose:${changedMedicine}`, new Set([CHANGED_VALUE]));
  }
  const marital = ENGAGEMENT_OFF_EN.test(trimmed)
    ? 'single'
    : (MARITAL_EN.exec(trimmed)?.[1] ?? (PROPOSAL_ACCEPTED_EN.test(trimmed) ? 'engaged' : undefined));
  if (marital) frames.set('marital', new Set([marital.toLowerCase()]));
  const fromMatch = FROM_EN.exec(trimmed);
  const fromValue = firstGroup(fromMatch);
  markAlternatives(trimmed, fromValue?.split(/\s+to\s+/i)[0] ?? '', NEGATION_EN.test(trimmed), frames);
  return {
    contentFree: content.length === 0,
    topic,
    clauses,
    changed: CHANGE_EN.test(trimmed),
    prefers: PREFERS_EN.test(trimmed),
    tentative: TENTATIVE_EN.test(trimmed),
    relative,
    keyValue,
    frames: heldBy(frames, relative),
    residence,
    // "quit the bakery job": the place left is the bakery.
    from:
      fromValue === undefined
        ? new Set()
        : termsOf(fromValue.split(/\s+to\s+|\s+and\s+|,/i)[0] ?? '', new Set([...owners, ...JOB_TERMS_EN])),
    ended: ENDED_EN.test(trimmed),
    died: termsOf(firstGroup(DIED_EN.exec(trimmed)) ?? ''),
    keeps: KEEPS_EN.test(trimmed),
  };
}

/** A named animal or pet that died: "Biscuit died in May", "our old dog Rex passed away", "had to put Luna down". */
const DIED_EN =
  /\b(\p{Lu}[\p{L}'’-]*)\s+(?:(?:has|had|sadly|finally|just|recently)\s+)*(?:died|passed away|was put down|was put to sleep|had to be put down)\b|\b(?:put|putting)\s+(\p{Lu}[\p{L}'’-]*)\s+down\b|\b(?:rehome|rehomed|rehoming|re-home|re-homed|gave away|give away|giving away|given away)\s+(\p{Lu}[\p{L}'’-]*)|\bfound\s+(\p{Lu}[\p{L}'’-]*)\s+a\s+new\s+home\b|\b(\p{Lu}[\p{L}'’-]*)\s+(?:(?:has|had|was|got|finally)\s+)*(?:went|gone|been\s+sent|was\s+sent|moved)\s+to\s+(?:live\s+with|a\s+new\s+home|a\s+(?:new\s+)?family)\b|\b(\p{Lu}[\p{L}'’-]*)\s+(?:was|got|has\s+been|had\s+to\s+be)\s+re-?homed\b|\b(?:we|i|they)\s+(?:sadly\s+|just\s+)?lost\s+(?:our\s+|my\s+|little\s+|old\s+)*(\p{Lu}[\p{L}'’-]*)\s+(?:on|in|last|this|yesterday|today|to|after|at)\b/u;
/** Keeping or having something: "has a corgi called Biscuit", "owns two horses", "adopted a cat". */
const KEEPS_EN =
  /\b(?:has|have|had|owns?|owned|got|keeps?|kept|adopted)\s+(?:an?|one|two|three|four|five|\d+)\s|\b(?:dog|cat|puppy|kitten|rabbit|hamster|parrot|horse|pony|tortoise|pet)\s+(?:called|named)\b/i;

/** The terms naming whom the statement is about: a leading name ("Maria", "Maria Lopez's") or "the user". */
function ownerTermsEnglish(text: string): Set<string> {
  const owners = new Set<string>();
  const name = /^([\p{Lu}][\p{L}'’-]*(?:\s+[\p{Lu}][\p{L}'’-]*)?)(?=['’]s\b|\s|$)/u.exec(text)?.[1];
  if (name && !OWNER_WORDS_EN.has(name.toLowerCase()) && !/^(?:the|a|an|my|his|her|their|our)$/i.test(name)) {
    for (const t of analyzeText(name.replace(/['’]s$/, ''))) owners.add(t.term);
  }
  for (const w of ['user', 'customer', 'person']) owners.add(w);
  return owners;
}

/**
 * The relative a frame's phrase is said of, from the words before it: "has a son who | works at
 * Google", "has a daughter named Ama, who | is 12", "whose son | is 7", "Priya's daughter | is 5".
 * Not one the owner is with ("She and her husband | live in Leeds").
 */
function holderEnglish(before: string): string | null {
  const match = HOLDER_EN.exec(before);
  if (!match || /\b(?:and|with)\s+(?:(?:my|his|her|their|our)\s+)?(?:\w+\s+)?$/i.test(before.slice(0, match.index))) {
    return null;
  }
  return match[1] ?? null;
}

const HOLDER_EN = new RegExp(
  `\\b(${[...RELATIVES_EN].join('|')})(?:\\s+(?:called|named)\\s+\\p{Lu}[\\p{L}'’-]*)?(?:\\s+\\p{Lu}[\\p{L}'’-]*)?,?\\s+(?:(?:who|that|which)\\s+)?(?:(?:now|still|also|just|currently|recently|finally|has|have|had|is|was|been)\\s+)*$`,
  'u',
);

/**
 * A relative clause on someone named after the sentence's start: "… to visit Huia, who | moved to
 * Australia", "… with my friend Ida, who | lives in Oslo". The sentence's own subject ("Aroha, who
 * | moved …") begins it and is not matched.
 */
const OTHER_PERSON_CLAUSE_EN =
  /\S\s+\p{Lu}[\p{L}'’-]*,?\s+who\s+(?:(?:now|still|also|just|currently|recently|finally|has|have|had|is|was|been)\s+)*$/u;

const SUBJECT_PRONOUN_EN = /^(?:i|we|he|she|they)$/u;

/**
 * Whether the clause a frame's phrase is in (after a comma or semicolon) has a pronoun for its
 * subject other than the one the statement begins with: "She split from Thabo; | he drives a
 * taxi", "I left Dave, | he lives in Leeds now". A statement that begins with a name says nothing
 * of which pronoun stands for it.
 */
function otherPronounSubject(text: string, before: string): boolean {
  const first = /^\s*([\p{L}]+)/u.exec(text)?.[1]?.toLowerCase() ?? '';
  const clause = /[,;]\s*([\p{L}]+)\s+(?:[\p{L}'’]+\s+){0,3}$/u.exec(before)?.[1]?.toLowerCase() ?? '';
  return SUBJECT_PRONOUN_EN.test(first) && SUBJECT_PRONOUN_EN.test(clause) && first !== clause;
}

/**
 * Whether the words before a frame's phrase end in a subject that is a thing, not the owner nor a
 * relative: "My office | moved to Potsdam", "Our company | is based in Leeds", "Tom's shop | is in York".
 */
function thingSubjectEnglish(before: string): boolean {
  const subject =
    /(?:^|[,;]\s*)(?:(?:my|our|his|her|their|the|its)\s+|\p{Lu}[\p{L}'’-]*['’]s\s+)([\p{L}\s-]+?)\s+(?:(?:has|have|had|is|are|was|were|just|recently|now|also|finally|been)\s+)*$/iu.exec(
      before,
    )?.[1];
  if (subject === undefined) return false;
  const said = subject.split(/\s+/).pop() ?? '';
  const head = said.toLowerCase();
  // "The Smiths moved to York", "The couple live in Leeds": people, not a thing.
  if (/^\p{Lu}/u.test(said) || PEOPLE_EN.test(head)) return false;
  return !RELATIVES_EN.has(head) && !RELATIVES_EN.has(head.replace(/s$/, '')) && !OWNER_WORDS_EN.has(head);
}

const PEOPLE_EN =
  /^(?:couple|household|twins|pair|everyone|everybody|people|folks|family|families|kids|children|parents)$/;

/** The head noun of a noun phrase, past its articles and adjectives: "my two kids" → "kids". */
function headNoun(phrase: string): string {
  return (
    phrase
      .toLowerCase()
      .replace(/^(?:(?:a|an|the|my|his|her|their|our|two|three|four|little|young|old|older|younger)\s+)+/u, '')
      .split(/\s+/)[0] ?? ''
  );
}

/** A move sets the residence: "moved to England", "relocated to Lyon". */
const MOVE_EN = /^(?:moved|moves|moving|relocated|relocating|relocates)\b/i;
/** A place of work, where one is "based at": "the Leeds office", "their Frankfurt branch". */
const WORKPLACE_EN =
  /\b(?:office|offices|branch|headquarters|hq|site|plant|factory|warehouse|depot|campus|lab|laboratory|studio|hospital|clinic|store|shop)\b/i;

/** A home named by its kind: "a terraced house in Headingley", "a flat near the park". */
const HOME_EN =
  /\b(?:neighbou?rhood|district|suburb|quarter|borough|house|flat|apartment|cottage|bungalow|studio|condo|condominium|townhouse|terrace|semi|bedsit|loft|maisonette|villa|farmhouse|houseboat|caravan|dorm|dormitory|penthouse)\b/i;

const BARE_RELATIVES_EN: Readonly<Record<string, string>> = {
  Mum: 'mum',
  Mom: 'mom',
  Mommy: 'mom',
  Mummy: 'mum',
  Dad: 'dad',
  Daddy: 'dad',
  Grandma: 'grandma',
  Grandpa: 'grandpa',
  Granny: 'grandma',
  Nan: 'grandma',
  Nana: 'grandma',
};

/**
 * The relative a sentence begins with and the name it gives them: "My daughter Leah goes to …" →
 * { phrase: "My daughter Leah", name: "Leah" }, so that "Leah has changed schools" is read as said of
 * the daughter.
 */
export function relativeNamedFirst(text: string): { phrase: string; name: string } | null {
  const match =
    /^((?:my|his|her|their|our|\p{Lu}[\p{L}'’-]*['’]s)\s+(?:(?:best|older|younger|little|big|eldest|oldest|youngest|elder|twin|baby)\s+)*([\p{Ll}-]+)\s*,?\s+(\p{Lu}[\p{L}'’-]*))(?=[\s,.;!?]|$)/iu.exec(
      text.trim(),
    );
  if (!match || !RELATIVES_EN.has((match[2] ?? '').toLowerCase())) return null;
  return { phrase: match[1] as string, name: match[3] as string };
}

/** "Priya's daughter …", "my husband …", "her son …": the relative in subject position. */
function relativeEnglish(text: string): string | null {
  // "Mum has moved in with us": a relative named by the word alone.
  const bare = /^(Mum|Mom|Mommy|Mummy|Dad|Daddy|Grandma|Grandpa|Granny|Nan|Nana)\b(?!['’])/.exec(text)?.[1];
  if (bare) return BARE_RELATIVES_EN[bare] ?? null;
  // "Yasmin, Hamid's sister, retrained …": the relative named first, then who they are.
  const apposed = /^\p{Lu}[\p{L}'’-]*\s*[,(]\s*([^,()]+?)\s*[,)]/u.exec(text)?.[1];
  const possessed = POSSESSIVE.exec(apposed ?? text) ?? POSSESSIVE.exec(text);
  const rest = possessed?.[1] ?? possessed?.[2];
  if (!rest) return null;
  // "my best friend", "her younger sister": the relative is the noun after its adjectives.
  const noun = rest
    .toLowerCase()
    .replace(
      /^(?:(?:best|older|younger|little|big|eldest|oldest|youngest|elder|twin|step|late|new|baby|dear|closest)\s+)+/u,
      '',
    );
  const head = /^[\p{L}-]+/u.exec(noun)?.[0] ?? '';
  return RELATIVES_EN.has(head) ? head : null;
}

/**
 * Whether a predicate names what one is ("a structural engineer designing bridges") rather than
 * what one does ("training for my pilot's licence", "in love with a doctor"): its profession
 * noun, if any, is not after a verb or a preposition.
 */
function headedByNoun(predicate: string): boolean {
  const tokens = predicate.toLowerCase().split(/\s+/);
  const at = tokens.findIndex((w) => !GERUND.test(w) && analyzeText(w).some((t) => PROFESSIONS_EN.has(t.term)));
  return at < 0 || tokens.slice(0, at).every((w) => !/ing$/.test(w) && !PREPOSITIONS_EN.has(w));
}

const GERUND = /ing\W*$/i;

/** The words of `text` without its -ing forms. */
function withoutGerunds(text: string): string {
  return text
    .split(/\s+/)
    .filter((w) => !GERUND.test(w))
    .join(' ');
}

const PREPOSITIONS_EN = new Set(words('for to with at in on of about from by into like as'));

/** What follows "is/are/became/is now" in "X is a teacher": the predicate noun phrase. */
function predicateEnglish(text: string): string {
  return (
    /(?:\b(?:is|are|was|am|became|becomes|become|turned into)|'s|'m|'re)\s+(?:now\s+|still\s+|also\s+)?(?:an?\s+)?(.+)/i.exec(
      text,
    )?.[1] ?? ''
  );
}

/** A later clause naming one of the owner's things: "The flat was sold, so my landlord is now …". */
const LATER_POSSESSED_KEY_EN =
  /[,;]\s*(?:so|and|but|and now|now)?\s*((?:my|his|her|their|our)\s+[\p{L}'’ -]{1,40}?\s+(?:is|are)\s+.+)$/iu;

function keyValueEnglish(text: string, owners: ReadonlySet<string>): Statement['keyValue'] {
  const later = LATER_POSSESSED_KEY_EN.exec(text)?.[1];
  if (later !== undefined && !POSSESSIVE.test(text.split(/[,;]/u)[0] ?? '')) return keyValueEnglish(later, owners);
  const match = KEY_VALUE_EN.exec(favouriteSaidOtherwise(text.replace(/[.!]+$/, '').replace(LEADING_TIME_EN, '')));
  if (!match) return keySwitchEnglish(text.replace(/[.!]+$/, ''), owners);
  const subject = (match[1] ?? '').trim();
  const possessed = POSSESSIVE.exec(subject);
  // A key is a noun phrase: "Priya's car", "my timezone", "the meeting with Dana", "timezone:".
  const nounPhrase =
    possessed !== null || /^(?:the|a|an|our)\s/i.test(subject) || /[:=]/.test(match[2] ?? '') || bareKey(subject);
  if (!nounPhrase) return null;
  const keyText = possessed ? (possessed[1] ?? possessed[2] ?? '') : subject;
  const key = termsOf(keyText, owners);
  // "The user is learning the cello": a trait of the owner, not a key with a value.
  if (key.size === 0 || (!possessed && ownerOnly(subject, owners))) return null;
  return withValue(match[3] ?? '', key);
}

/** "These days, …", "Nowadays …", "At the moment …": when, before the subject. */
const LEADING_TIME_EN =
  /^(?:(?:these days|nowadays|now|currently|at the moment|at present|lately|recently|since then|by now|today)\b,?\s+)+/i;

/**
 * A favourite said as what one likes most: "the band Hamid loves most is …", "the food she likes
 * best is …" → "Hamid's favorite band is …", so it is the same key as "Hamid's favourite band".
 */
function favouriteSaidOtherwise(text: string): string {
  return text.replace(
    /^(?:[Tt]he\s+)?((?:[\p{Ll}-]+\s+){0,2}?[\p{Ll}-]+)\s+(?:that\s+|which\s+)?(\p{Lu}[\p{L}'’-]*|I|he|she|they|we)\s+(?:really\s+)?(?:loves?|likes?|enjoys?|rates?|prefers?)\s+(?:the\s+)?(?:most|best)(?=\s+(?:is|are|was|were)\b|\s*[:=])/u,
    (_, thing: string, who: string) => `${/^(?:I|he|she|they|we)$/.test(who) ? 'my' : `${who}'s`} favorit ${thing}`,
  );
}

/** The value of a key as said ("now UTC+1", "on Thursday"): every token but the cue words. */
function withValue(said: string, keyTerms: Set<string>): Statement['keyValue'] {
  const key = canonicalKey(keyTerms);
  // Every token of the value counts ("alex@a.com" and "alex@b.com" differ in a stop word).
  const valueText = said.replace(/^(?:(?:now|still|actually|currently|on|at|in|a|an|the)\s+)+/i, '');
  const value = new Set(analyzeText(valueText).flatMap((t) => (CUE_TERMS_EN.has(t.term) ? [] : [t.term])));
  return value.size > 0 ? { key, value } : null;
}

/**
 * A key said as it changes: "we switched our supplier to Globex", "switch the meeting to
 * Friday", "my email changed to c@d.com", "we now use Globex as our supplier". The key is a noun
 * phrase of a thing (a relative or one's family moved somewhere is not a key: "moved my son to a
 * new school").
 */
const KEY_SWITCH_EN: ReadonlyArray<{ pattern: RegExp; key: number; value: number }> = [
  // "My mobile changed, it's 07700 900456 now", "Her email has changed: it is now …".
  {
    pattern:
      /^((?:my|our|his|her|their|the)\s+.+?|\p{Lu}[\p{L}'’-]*['’]s\s+.+?)\s+(?:(?:has|have)\s+)?changed\s*(?:,|;|:|—|-|\band\b)\s*(?:(?:it|they)['’]s|(?:it|they)\s+(?:is|are)|the\s+new\s+one\s+is|now\s+(?:it['’]s|it\s+is))\s+(?:now\s+)?(.+?)(?:\s+now)?$/iu,
    key: 1,
    value: 2,
  },
  {
    pattern:
      /\b(?:switch(?:ed|es|ing)?|chang(?:e|ed|es|ing)|mov(?:e|ed|es|ing)|updat(?:e|ed|es|ing)|set)\s+((?:my|our|his|her|their|the)\s+.+?)\s+(?:over\s+)?to\s+(.+)$/i,
    key: 1,
    value: 2,
  },
  {
    pattern:
      /^((?:my|our|his|her|their|the)\s+.+?|(?:the\s+)?(?:user|customer|person)['’]s\s+.+?|\p{Lu}[\p{L}'’-]*['’]s\s+.+?)\s+(?:(?:has|have)\s+)?(?:been\s+|got\s+)?(?:now\s+)?(?:changed|switched|moved|updated)\s+(?:over\s+)?to\s+(.+)$/iu,
    key: 1,
    value: 2,
  },
  // "work email changed to …" (said casually, without "my"): a noun phrase, not a person or "everything".
  {
    pattern:
      /^(?!(?:i|we|you|he|she|it|they|everything|nothing|things|plans?)\b)([a-z][a-z -]{1,30}?)\s+(?:(?:has|have)\s+)?(?:been\s+)?(?:changed|updated)\s+to\s+(.+)$/u,
    key: 1,
    value: 2,
  },
  {
    pattern:
      /\b(?:changed|switched)\s+([a-z]+?)s?\s*(?:,|\band\b)\s+(?:(?:is\s+)?now\s+)?(?:sees|uses|goes\s+to|banks\s+with|is\s+with)\s+(.+)$/i,
    key: 1,
    value: 2,
  },
  {
    pattern:
      /\b(?:use|uses|using|chose|chosen|picked|hired|appointed|went with|go with|going with)\s+(.+?)\s+as\s+((?:my|our|his|her|their|the)\s+.+)$/i,
    key: 2,
    value: 1,
  },
];

function keySwitchEnglish(text: string, owners: ReadonlySet<string>): Statement['keyValue'] {
  for (const { pattern, key: keyAt, value: valueAt } of KEY_SWITCH_EN) {
    const match = pattern.exec(text);
    if (!match) continue;
    const subject = (match[keyAt] ?? '').trim();
    const possessed = POSSESSIVE.exec(subject);
    const keyText = (possessed ? (possessed[1] ?? possessed[2] ?? '') : subject).replace(/^the\s+/i, '');
    const head = /^[\p{L}-]+/u.exec(keyText.toLowerCase())?.[0] ?? '';
    if (RELATIVES_EN.has(head) || /^(?:family|kids|children|people|everyone|everybody|self|myself)$/.test(head)) {
      return null;
    }
    const key = termsOf(keyText, owners);
    return key.size > 0 ? withValue(match[valueAt] ?? '', key) : null;
  }
  return null;
}

/**
 * A key as one attribute, however it is worded: the words of a change ("my new number", "我的新号码")
 * are not part of it, and a phone number is one key whether said "phone number", "mobile", "number",
 * "手机号" or "电话号码" (not "phone" alone, which may be the device), an email address one too.
 */
function canonicalKey(terms: ReadonlySet<string>): Set<string> {
  const kept = [...terms].filter((t) => !KEY_CHANGE_TERMS.has(t));
  for (const [name, { words: said, needs }] of KEY_SYNONYMS) {
    if (kept.length > 0 && kept.every((t) => said.has(t)) && kept.some((t) => needs.has(t))) return new Set([name]);
  }
  return new Set(kept);
}

const KEY_CHANGE_TERMS = new Set([...stems('new current latest'), '新', '现']);
const KEY_SYNONYMS: ReadonlyMap<string, { words: ReadonlySet<string>; needs: ReadonlySet<string> }> = new Map([
  [
    'phone-number',
    {
      words: new Set([...stems('phone number mobile cell telephone contact'), ...'手机号码电话联系方式']),
      needs: new Set([...stems('number mobile cell telephone'), '号', '话']),
    },
  ],
  [
    'email-address',
    {
      words: new Set([...stems('email e-mail mail address'), ...'电子邮件箱地址']),
      needs: new Set([...stems('email e-mail'), '邮']),
    },
  ],
]);

/** "timezone is …", "home city is …": a few lower-case words, no name, no verb or cue among them. */
function bareKey(subject: string): boolean {
  const tokens = analyzeText(subject);
  return (
    /^\p{Ll}/u.test(subject) &&
    tokens.length > 0 &&
    tokens.length <= 3 &&
    tokens.every((t) => !t.stop && !CUE_TERMS_EN.has(t.term))
  );
}

function ownerOnly(subject: string, owners: ReadonlySet<string>): boolean {
  return analyzeText(subject).every((t) => t.stop || owners.has(t.term) || OWNER_WORDS_EN.has(t.surface));
}

// ---------------------------------------------------------------------------------------------
// Chinese

/** Words that contain 不 but deny nothing (乳糖不耐受 is "lactose intolerant"). */
// 特别 ("especially"), 别人 ("others"): no 别 ("don't").
const NOT_NEGATIONS_ZH = [
  '不耐受',
  '不适',
  '不错',
  '不好意思',
  '不少',
  '不久',
  '不同',
  '不断',
  '特别',
  '别人',
  '别的',
  '分别',
  '区别',
  '告别',
  '级别',
  '类别',
  '性别',
  '个别',
];
const NEGATION_ZH =
  /不再|不|没有|没|別|别|戒掉|戒了|戒|讨厌|放弃|停止|停掉了?|停药|停了(?=$|[，,。；;！!])|拒绝|不喜欢|受不了/;
const CHANGE_ZH =
  /不再|改成|改为|改用|换成|换了|现在|如今|已经|以前|曾经|搬到|搬去|搬家|从.+到|不.*了$|戒|离开|辞职|跳槽|加入|开始|其实|变成/;
// 理想, 思想, 梦想: an ideal (and a make of car), not a wish.
const TENTATIVE_ZH =
  /想要|(?<![理思梦感])想|打算|准备|考虑|可能|也许|希望|如果|要不要|目标是|梦想是|计划|吗[？?]?$|[？?]$/;
/** Cue words taken out before the topic is read (order matters: longer first). */
const CUES_ZH = [
  '不再',
  '不喜欢',
  '喜欢',
  '讨厌',
  '偏好',
  '更喜欢',
  '热爱',
  '爱',
  '受不了',
  '没有',
  '没',
  '不',
  '别',
  '別',
  '戒掉',
  '戒了',
  '戒',
  '放弃',
  '停止',
  '拒绝',
  '已经',
  '现在',
  '如今',
  '以前',
  '曾经',
  '其实',
  '开始',
  '改成',
  '改为',
  '改用',
  '换成',
  '换了',
  '每天',
  '每周',
  '每月',
  '每年',
  '周末',
  '早上',
  '晚上',
  '上午',
  '下午',
  '今天',
  '昨天',
  '明天',
  '最近',
  '经常',
  '总是',
  '有时',
  '一直',
  '还',
  '也',
  '都',
  '很',
  '非常',
  '特别',
  '真的',
  '了',
  '的',
  '是',
  '在',
  '有',
  '对',
  '会',
  '要',
  '去',
  '喝',
  '吃',
  '抽',
  '打',
  '玩',
  '用',
  '看',
  '听',
  '做',
];
const FILLERS_ZH = [
  '好的',
  '好吧',
  '嗯嗯',
  '嗯',
  '哈哈',
  '呵呵',
  '谢谢',
  '你好',
  '是的',
  '对的',
  '对',
  '行',
  '可以',
  '哦',
  '啊',
  '好',
  '拜拜',
  '再见',
];
const RELATIVES_ZH = [
  // An ex before the partner word it ends with ("前男友" is not a 男友).
  '前男友',
  '前女友',
  '前夫',
  '前妻',
  '前任',
  '女儿',
  '儿子',
  ...PARTNERS_ZH,
  '妈妈',
  '母亲',
  '爸爸',
  '父亲',
  '父母',
  '姐姐',
  '妹妹',
  '哥哥',
  '弟弟',
  '好朋友',
  '朋友',
  '闺蜜',
  '男闺蜜',
  '好友',
  '哥们',
  '死党',
  '发小',
  '老板',
  '经理',
  '同事',
  '邻居',
  '孩子',
  '宝宝',
  '爷爷',
  '奶奶',
  '外公',
  '外婆',
  '姥姥',
  '姥爷',
  '嫂子',
  '姐夫',
  '妹夫',
  '弟媳',
  '表哥',
  '表姐',
  '表弟',
  '表妹',
  '堂哥',
  '堂姐',
  '堂弟',
  '堂妹',
  '舅舅',
  '舅妈',
  '叔叔',
  '阿姨',
  '姑姑',
  '姨妈',
  '婶婶',
  '侄子',
  '侄女',
  '外甥女',
  '外甥',
  '外孙女',
  '外孙',
  '孙子',
  '孙女',
  '孙儿',
  '公公',
  '婆婆',
  '岳父',
  '岳母',
  '室友',
  '同学',
  '男友',
  '女友',
  '老爸',
  '老妈',
  '狗',
  '猫',
  // Said short after 我 ("我哥在银行上班", "我姐养了一条狗"): last, so the longer words match first.
  '哥',
  '姐',
  '弟',
  '妹',
  '爸',
  '妈',
];
/** The owner at the start: 我/用户/他/她 or a two- or three-character name before a verb or particle. */
const OWNER_ZH =
  /^(?:我们|我|用户|他们|她们|他|她|[\p{Script=Han}]{2,3}?(?=喜欢|不|没|是|在|住|对|有|已经|现在|每|很|养|讨厌|爱|偏好|吃|喝|抽|打|会|要|想|打算|去|从|搬|换|改|戒|的|怕|恐|当|做|学|一直|也|还|都|周|今|明|昨|其实|把|开|升职))/u;

/** Occupations, for "是出租车司机", "当保安", "做外卖员". */
const PROFESSIONS_ZH =
  '老师|教师|医生|护士|律师|程序员|工程师|设计师|会计|厨师|司机|学生|警察|记者|作家|销售|演员|歌手|画家|农民|工人|服务员|翻译|研究员|教授|科学家|建筑师|飞行员|消防员|军人|公务员|牙医|兽医|自由职业者|保安|快递员|外卖员|保姆|理发师|护工|电工|木匠|清洁工|店员|收银员|导游|教练|药剂师|出纳|秘书|前台|主播|模特|空姐|乘务员|保洁|门卫|厨子|裁缝|渔民|矿工|技术员';

/** A role done for nothing, "在社区当志愿者": no job (as PASTIME_EN's "volunteer" is not in English). */
const VOLUNTARY_ZH = /志愿者|义工|志愿/u;

const FRAMES_ZH: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // "奶奶被我们接到城里来住了", "把爸妈接到深圳住": someone brought to live somewhere.
  { name: 'residence', pattern: /(?:接到|接去|送到|送去)([^，,。；;！!来去住]+?)(?:来|去)?(?:住|生活|养老)/u },
  {
    name: 'residence',
    pattern:
      /(?:住在|住(?![了过]?[\d一二两三四五六七八九十几]*[天周个月]*院)|搬到了|搬到|搬去了|搬去|搬来了|搬来|定居在|定居|生活在|居住在)([^，,。；;！!]+)/u,
  },
  // The school one goes to: "在实验小学读三年级", "转到育才小学了".
  {
    name: 'school',
    pattern:
      /(?:在|转到|转学到|转去|考上了?|考进了?)([^，,。；;在]{1,10}?(?:小学|中学|初中|高中|大学|学院|幼儿园|学校))(?:读|上|念|了|$|，|,)/u,
  },
  // The subject one studies: "在读会计专业", "学的是法律专业".
  { name: 'major', pattern: /(?:读|学|念|修|转到|转去|转入|转了|换到|改学|改读)(?:的是)?([^，,。；;读学]{1,8}?)专业/u },
  // "在一家广告公司做设计": a place of work, whatever the job is called.
  {
    name: 'employer',
    pattern:
      /(?<![现正实存所自好])在(?:一家|一个|一间)?([^，,。；;在]{1,10}?(?:公司|店|厂|医院|诊所|银行|餐厅|饭馆|饭店|超市|单位|酒店|工地|机构|集团|事务所|工作室))(?:当|做|担任|上班|工作|打工)/u,
  },
  // Not 在 of 现在/正在 ("现在坐地铁上班" says how one gets to work, not where).
  {
    name: 'employer',
    pattern: /(?<![现正实存所自好])在([^，,。；;]+?)(?:工作|上班|任职|兼职|打工|干活|干(?=了|$|[，,。]))/u,
  },
  // "在腾讯当产品经理", "在医院做护士": the place one works as something.
  {
    name: 'employer',
    pattern: new RegExp(
      `(?<![现正实存所自好])在([^，,。；;在]+?)(?:当|做|担任)(?:了|一名|一个|个)?(?:[^，,。；;]{0,6}?(?:${PROFESSIONS_ZH}|经理|总监|主管))`,
      'u',
    ),
  },
  { name: 'employer', pattern: /(?:就职于|加入了|加入|跳槽到|跳槽去)([^，,。；;]+)/u },
  {
    name: 'occupation',
    pattern: new RegExp(
      `(?:是一名|是一位|是个|是一个|是|当了|当(?![年时地初然天晚场中前])|做)((?:[^，,。；;的是]{0,4}?)(?:${PROFESSIONS_ZH}|经理))`,
      'u',
    ),
  },
  // A title in a firm: "升职为销售总监", "是公司的产品经理" (not a role in a club: 组长, 会长, 班主任).
  { name: 'occupation', pattern: /(?:升职为|升职成了?|升为|晋升为|升任|被提拔为|提拔为)([^，,。；;]+)/u },
  {
    name: 'occupation',
    pattern: /是(?:[^，,。；;是]{0,8}?的)?([^，,。；;的是]{0,6}?(?:总经理|经理|总监|主管|总裁|董事长|合伙人))/u,
  },
  // Not 当 of 当年, 当时, 当地, 当初 ("是当年单位分的" says when, not a job).
  { name: 'occupation', pattern: /(?:是一名|是一位|当了|当(?![年时地初然天晚场中前]))([^，,。；;]+)/u },
  { name: 'weight', pattern: /体重(?:现在|已经|是|有|大约|约|只有)*(\d+(?:\.\d+)?\s*(?:公斤|斤|千克|kg))/u },
];
const MARITAL_ZH: ReadonlyArray<[RegExp, string]> = [
  [/离婚/, 'divorced'],
  [/订婚/, 'engaged'],
  [/丧偶/, 'widowed'],
  // "跟她的同事在一起了", "脱单了": a couple now (not "和父母住在一起").
  [/(?<!住)在一起了|脱单|交了(?:个|一个)?(?:新)?(?:男|女)朋友|谈恋爱了/, 'dating'],
  [/单身/, 'single'],
  [/已婚|结婚|领证/, 'married'],
];
/** Makes of car, for "我开丰田" / "我现在开特斯拉". */
const CAR_MAKES_ZH =
  /(丰田|本田|特斯拉|宝马|奔驰|奥迪|大众|比亚迪|福特|日产|蔚来|理想|小鹏|吉利|现代|马自达|雷克萨斯|保时捷|沃尔沃|别克|雪佛兰|长城|红旗|五菱|问界|极氪)/u;
/** An age; not the age at an event ("十九岁就考了驾照", "十八岁那年", "二十岁以后"), which is no age now. */
const AGE_ZH =
  /(?<!比[^，,。；;]{0,6}[大小])(?<![大小])(\d{1,3}|[一二两三四五六七八九十]{1,4})(?:周)?岁(?!(?:时|的时候|那年|那会|就|起|开始|以前|之前|以后|之后|后|前|上))/u;

/** An animal a clause keeps or names: "养了一只叫“煤球”的黑猫", "有条狗". */
const ANIMAL_ZH = /(?:养|[只条匹头])[^，,。；;]*?(?:猫|狗|鸟|鱼|兔|龟|鼠|鹦鹉|马)/u;

/**
 * Whether an age is said of an animal: its clause has no subject of its own ("…的黑猫，| 已经十二岁了")
 * or has 它, and the clause before keeps or names an animal.
 */
function ageOfAnAnimalZh(body: string, index: number): boolean {
  const clauses = body.slice(0, index).split(/[，,]/u);
  const own = clauses.pop() ?? '';
  const previous = clauses.pop() ?? '';
  return /^(?:它|已经|今年|都|才|也|刚|快|满)/u.test(own.trim() || '已经') && ANIMAL_ZH.test(previous);
}

/** "三十一" → "31", "十八" → "18", "两" → "2", "42" → "42". */
function hanNumber(text: string): string {
  if (/^\d+$/.test(text)) return String(Number(text));
  const digit = (c: string | undefined) =>
    c === undefined || c === '' ? undefined : Number(HAN_NUMERALS.get(c) ?? NaN);
  const at = text.indexOf('十');
  if (at < 0) return String(digit(text) ?? text);
  const tens = at === 0 ? 1 : (digit(text.slice(0, at)) ?? 1);
  const units = digit(text.slice(at + 1)) ?? 0;
  return String(tens * 10 + units);
}

const FROM_ZH =
  /从([^，,。；;到]+?)(?:搬|到|换|改|辞职|离职|退学|跳槽|退休)|离开了?([^，,。；;]+?)(?:，|,|。|$|加入|去)|把([^，,。；;]+?)(?:卖|转让|退|送人|送走)(?:掉|给[^，,。；;]*)?了|(?:^|[，,])(?:那|这)?[只条匹头个]?([^，,。；;把]+?)送(?:给|人|走)/u;
/** "那只哈士奇太闹了，我们送给了亲戚": the animal or thing named in the clause before, given away. */
const GIVEN_AWAY_ZH =
  /(?:那|这)[只条匹头个辆台]([^，,。；;]{1,6}?)(?=太|很|特别|实在|总是|老是|一直|[，,])[^，,。；;]*[，,](?:我们|我|他们|她们|他|她|就|后来|只好|最后|只能)*(?:把它|把她|把他)?(?:送给|送人|送走)/u;

/**
 * A thing said sold at the start of a clause: "雅阁已经卖掉了", "我的旧车上个月卖了" (read on the whole
 * text: a thing's name before 已经 reads like an owner's).
 */
const SOLD_ZH =
  /(?:^|[，,])(?:[^，,。；;]{0,4}的)?(?:那|这)?[辆台部个]?([^，,。；;把的]{1,8}?)(?:已经|早就|也|上个月|去年|前几天)*(?:卖掉了|卖了|转手了|处理掉了)/u;

const KEY_VALUE_ZH =
  /^(?:我们|我|用户|他|她|[\p{Script=Han}]{2,3}?)(?:最喜欢|最爱)?的([^是为：:]+)(?:是|为|：|:)(.+)$/u;
/** A key that needs no 的: "我手机号是…", "她微信号：…". */
const BARE_KEY_VALUE_ZH =
  /^(?:我们|我|用户|他|她)((?:手机|电话|微信|QQ|qq|身份证|车牌|工|学)号(?:码)?|手机|电话|邮箱|住址|地址|生日)(?:是|为|：|:)(.+)$/u;

/**
 * A key said as it changes: "我们的供应商改成白云了", "供应商换成白云了", "我们把供应商换成了白云".
 * The key comes before the change verb, after the owner (and 把).
 */
const OWNER_ONLY_ZH = /^(?:我们|我|用户|他们|她们|他|她)$/u;
/** A new value said with the key: "换了新号码，现在是…", "换了个新邮箱：…". */
const NEW_KEY_ZH = /换了(?:个|一个)?新的?([^，,。；;：:]+?)[，,：:]\s*(?:现在|如今)?(?:是|为)?(.+)$/u;
/** The new value said in a clause of its own: "我换号了，新号码是…", "搬家了，新地址：…". */
const NEW_VALUE_ZH = /(?:^|[，,])\s*(?:现在的|新的?)([^，,。；;是为：:]{1,6}?)(?:是|为|：|:)\s*(.+)$/u;
/** A key said changed, then its new value: "微信号改了，新的是…", "手机号换了，现在是…". */
const CHANGED_KEY_ZH =
  /^(?:我们的?|我的?|她的?|他的?)?([^，,。；;]{1,6}?)(?:已经)?(?:改了|换了|变了)[，,]\s*(?:新的|现在的|现在)(?:是|为|：|:)\s*(.+)$/u;
const KEY_SWITCH_ZH =
  /^(?:我们|我|用户|他们|她们|他|她)?(?:的|把)?([^，,。；;把]+?)(?:已经|现在|也)?(?:改成|换成|改为|换为|换到|变成|更换为|更换成|改到)了?(.+)$/u;

/**
 * Topic terms of Chinese text: its Han characters once the cue words are out (word boundaries are
 * not marked, and character pairs across them are noise), plus Latin words and numbers.
 */
function hanTerms(text: string, everyLatinToken = false): Set<string> {
  let rest = text;
  for (const word of NOT_NEGATIONS_ZH) rest = rest.replaceAll(word, ` ${word.replace('不', '否')} `);
  for (const cue of CUES_ZH) rest = rest.replaceAll(cue, ' ');
  const terms = new Set<string>();
  for (const t of analyzeText(rest)) {
    // A value keeps every Latin token ("lin@a.com" and "lin@b.com" differ in a stop word).
    if (t.kind === 'cjk-bigram' || (t.stop && t.kind !== 'cjk-char' && !everyLatinToken)) continue;
    if (t.kind === 'cjk-char' && CJK_STOP_CHARS.has(t.term)) continue;
    terms.add(t.term);
  }
  return terms;
}

function negativeZh(text: string): boolean {
  return deniedZh(text) !== null;
}

/** The terms of what a Chinese clause denies (those after its denial word), or null when it denies nothing. */
function deniedZh(text: string): Set<string> | null {
  let rest = text;
  for (const word of NOT_NEGATIONS_ZH) rest = rest.replaceAll(word, '');
  // 无肉不欢, 无辣不欢: "no X, no joy" says one loves X.
  rest = rest.replace(/无(\p{Script=Han}{1,2}?)不(?:欢|行|成)/gu, '$1');
  const denial = NEGATION_ZH.exec(rest);
  if (denial === null) return null;
  const after = hanTerms(rest.slice(denial.index + denial[0].length));
  // "咖啡戒了", "烟早就不抽了", "羽毛球队我没再去了": the object said first, the denial last (after it
  // at most a verb such as 去, 考, 喝 and 再), and who denies it is no part of it.
  const objectFirst = after.size === 0 || [...after].every((t) => LIGHT_AFTER_DENIAL_ZH.has(t));
  if (!objectFirst) return after;
  const said = rest.slice(0, denial.index).replace(BEFORE_DENIED_ZH, '');
  const before = new Set([...hanTerms(said)].filter((t) => !PEOPLE_CHARS_ZH.has(t)));
  return before.size > 0 ? before : after;
}

/** What may follow a denial whose object was said first: a verb of doing it, and 再 ("again"). */
const LIGHT_AFTER_DENIAL_ZH: ReadonlySet<string> = new Set([...'再去考学用吃喝玩练做打上来干抽看开']);

/** "早饭改喝豆浆了": a habit's verb said with 改 and what it is done with now. */
const HABIT_CHANGE_ZH = /改(喝|吃|用|骑|坐|开|抽|听|玩|练|打|穿|戴)了?([^，,。；;了]{1,8})/u;
const PEOPLE_CHARS_ZH = new Set([...'我你他她它们咱']);
/** Words that may stand before a denied object and are no part of it: "已经把咖啡戒了". */
const BEFORE_DENIED_ZH = /^(?:[我你他她它们咱]*)(?:已经|早就|早已|都|也|就|终于)*把/u;

/**
 * Whether a Chinese statement changes the habit an older one states: "我早饭习惯喝牛奶" → "早饭改喝豆浆了"
 * (the same verb, another object, said of the same occasion: a word of the rest of the clause in common).
 * "晚上改喝茶了" says nothing of "早上喝咖啡", nor "也改喝…" of anything.
 */
export function habitChangedZh(olderText: string, newerText: string): boolean {
  const change = HABIT_CHANGE_ZH.exec(newerText);
  if (change === null) return false;
  const [, verb, object] = change as unknown as [string, string, string];
  const newerClause = clauseAround(newerText, change.index);
  if (/也|还/u.test(newerClause.text.slice(0, change.index - newerClause.start))) return false;
  const was = new RegExp(`${verb}(?:一[杯碗瓶份个])?([^，,。；;了]{1,8})`, 'u').exec(olderText);
  if (was === null) return false;
  const before = was[1] as string;
  if (before.startsWith(object) || object.startsWith(before)) return false;
  const occasion = (text: string, said: string) =>
    new Set([...hanTerms(text.replace(said, ' '))].filter((t) => !PEOPLE_CHARS_ZH.has(t)));
  const olderClause = clauseAround(olderText, was.index);
  const then = occasion(olderClause.text, was[0]);
  const now = occasion(newerClause.text, change[0]);
  return [...now].some((t) => then.has(t));
}

function clauseAround(text: string, index: number): { text: string; start: number } {
  const start = Math.max(...['，', ',', '。', '；', ';'].map((c) => text.lastIndexOf(c, index))) + 1;
  const ends = ['，', ',', '。', '；', ';'].map((c) => text.indexOf(c, index)).filter((i) => i >= 0);
  return { text: text.slice(start, ends.length > 0 ? Math.min(...ends) : text.length), start };
}

/** The first capture group a match filled (patterns with alternatives capture in different groups). */
function firstGroup(match: RegExpExecArray | null): string | undefined {
  return match?.slice(1).find((group) => group !== undefined);
}

/** A relative and their name (two or three characters) ending a clause: "朋友阿杰", "女儿乐乐". */
const NAMED_RELATIVE_ZH = new RegExp(`(${RELATIVES_ZH.join('|')})\\p{Script=Han}{2,3}$`, 'u');

/** A relative the clause starts by introducing ("有个弟弟…", "还有一个女儿…"): the rest of the clause is about them. */
const INTRODUCED_RELATIVE_ZH = new RegExp(`^(?:也|还)?有(?:[一两二三几]?[个位名])?(${RELATIVES_ZH.join('|')})`, 'u');

/** A sentence that begins with a relative (after the owner): "(赵磊)的爸爸现在…". */
const SUBJECT_RELATIVE_ZH = new RegExp(`^的?(${RELATIVES_ZH.join('|')})`, 'u');

/**
 * The relative a frame's phrase at `index` is said of: one it qualifies ("五岁的女儿"), one the
 * clause introduces ("有个弟弟在深圳做程序员") or the one right before it in its clause ("女儿今年五岁",
 * "有个儿子叫乐乐在北京工作"). Not one the owner is with ("和妻子住在南山区": both live there).
 */
function holderChinese(body: string, index: number, length: number): string | null {
  const after = body.slice(index + length);
  const qualified = RELATIVES_ZH.find((r) => after.startsWith(`的${r}`));
  if (qualified) return qualified;
  const clause =
    body
      .slice(0, index)
      .split(/[，,。；;！!？?]/u)
      .pop() ?? '';
  const introduced = INTRODUCED_RELATIVE_ZH.exec(clause)?.[1];
  if (introduced) return introduced;
  // "还有一个女儿，叫甜甜，才四岁", "的爸爸现在不开出租了，在小区当保安": the relative the sentence
  // introduced or began with, while no later clause turns back to someone else ("我", "他" …).
  const sentence =
    body
      .slice(0, index)
      .split(/[。；;！!？?]/u)
      .pop() ?? '';
  const [first, ...later] = sentence.split(/[，,]/u);
  const introducedBefore = (INTRODUCED_RELATIVE_ZH.exec(first ?? '') ?? SUBJECT_RELATIVE_ZH.exec(first ?? ''))?.[1];
  if (introducedBefore && !later.some((c) => /^(?:我|你|他|她|它|咱)/u.test(c))) return introducedBefore;
  const stem = clause
    .replace(/(?:今年|现在|已经|目前|刚|才|也|都|还|在)+$/u, '')
    .replace(/叫\p{Script=Han}{1,3}$/u, '')
    // "最好的朋友阿杰 | 是一名消防员": the relative's name after it.
    .replace(NAMED_RELATIVE_ZH, '$1');
  const holder = RELATIVES_ZH.find((r) => stem.endsWith(r));
  return holder && !/(?:和|跟|与|同)$/u.test(stem.slice(0, -holder.length)) ? holder : null;
}

/** A thing as the subject of a frame's phrase ("我公司 | 搬到了天津", "我们办公室 | 在…"). */
const THING_SUBJECT_ZH =
  /(?:公司|办公室|单位|工厂|店|餐厅|学校|总部|团队|部门|工作室|实验室|仓库|门店|会议|银行)(?:的)?(?:已经|现在|也|都|刚|还)*$/u;

/** A home named by its kind: "一套两居室", "一间公寓", "学校的宿舍". */
const HOME_ZH = /公寓|房子|居室|别墅|小区|宿舍|平房|楼房|套房|出租屋|四合院|洋房/u;

/**
 * Marks the attributes a text says changed, unless said of someone else (`saidOfAnother`, given the
 * words before the change: "Turns out Dr Patel | retired" is the dentist's retirement).
 */
function markChangedAttributes(
  text: string,
  frames: Map<string, Set<string>>,
  holderOf: (before: string) => string | null | false = () => null,
): void {
  for (const { name, pattern } of CHANGED_ATTRIBUTES) {
    if (frames.has(name)) continue;
    const change = pattern.exec(text);
    if (change === null) continue;
    // A relative's change is theirs ("her son changed schools"); another person's or a thing's is no one's here.
    const holder = holderOf(text.slice(0, change.index));
    if (holder !== false) frames.set(holder ? `${name}@${holder}` : name, new Set([CHANGED_VALUE]));
  }
}

/** "Dr Patel", "Mrs Hughes": someone named by a title, who is not the owner. */
const TITLED_NAME_BEFORE_EN =
  /\b(?:Dr|Mr|Mrs|Ms|Miss|Prof|Professor|Doctor|Nurse|Father|Sister|Rev)\.?\s+\p{Lu}[\p{L}'’-]*\s+(?:(?:has|had|just|finally|recently|now|also)\s+)*$/u;

/**
 * Whose change the words before it in an English text say: a relative's (their word), the owner's
 * (null), or another person's or a thing's (false: "Turns out Dr Patel | retired", "my office | moved").
 */
function changeHolderEnglish(text: string, before: string): string | null | false {
  const anotherOrAThing =
    TITLED_NAME_BEFORE_EN.test(before) ||
    OTHER_PERSON_CLAUSE_EN.test(before) ||
    otherPronounSubject(text, before) ||
    thingSubjectEnglish(before);
  return anotherOrAThing ? false : holderEnglish(before);
}

function analyseChinese(text: string): Analysis {
  const trimmed = text.trim();
  const leading = OWNER_ZH.exec(trimmed)?.[0] ?? '';
  // "女儿转学了": a sentence that begins with a relative is about them, whose word is no one's name.
  const owner = RELATIVES_ZH.some((r) => leading.startsWith(r)) ? '' : leading;
  const body = trimmed.slice(owner.length);
  let content = trimmed.replace(/[^\p{Script=Han}\p{L}\p{N}]+/gu, '');
  for (const filler of FILLERS_ZH) content = content.replaceAll(filler, '');
  const afterOwner = body.replace(/^的/, '');
  // "阿敏有男朋友，叫阿杰": a relative the statement introduces is what it is about.
  const introduced =
    RELATIVES_ZH.find((r) => afterOwner.startsWith(r)) ?? INTRODUCED_RELATIVE_ZH.exec(body)?.[1] ?? null;
  // "孩子上幼儿园了，我重新上班了": a statement that turns to the owner in a later clause is the
  // owner's (its frames still go to whom each clause is about, holderChinese).
  const named = introduced !== null && owner === '' && /[，,]\s*我(?!们)/u.test(body) ? null : introduced;
  // "郭芳的狗送人了": the owner gave the pet away, a statement about the owner.
  const relative = named !== null && /^[狗猫]$/u.test(named) && PET_GONE_ZH.test(body) ? null : named;
  const clauses = body
    // 不过敏 is "not allergic", not 不过 ("but").
    .split(/[，,。；;！!？?]+|但是|不过(?!敏)|可是/u)
    .filter((c) => c.trim() !== '')
    .map((clause) => {
      const denied = deniedZh(clause);
      return {
        topic: hanTerms(clause),
        negative: denied !== null,
        denied: denied ?? new Set<string>(),
        when: new Set(clause.match(OCCASIONS_ZH) ?? []),
      };
    });
  const frames = new Map<string, Set<string>>();
  let residence: Statement['residence'] = null;
  for (const { name, pattern } of FRAMES_ZH) {
    if (frames.has(name)) continue;
    const match = pattern.exec(body);
    const value = match?.[1];
    if (match === null || value === undefined) continue;
    // "和父母住在一起", "在家工作": with whom or from where, not a place or an employer.
    if (/^(?:一起|这里|那里|这儿|那儿|家里?|家中)(?:了|的)?$/u.test(value)) continue;
    // "在读大学": at a university, whichever ("读" is the studying, not the school's name).
    const terms = hanTerms((name === 'school' ? value.replace(/^(?:读|上|念)/u, '') : value).replace(/了$/, ''));
    if (terms.size === 0) continue;
    // "我公司搬到了天津": the company's move, not the owner's.
    if (
      THING_SUBJECT_ZH.test(
        body
          .slice(0, match.index)
          .split(/[，,。；;！!？?]/u)
          .pop() ?? '',
      )
    )
      continue;
    if (name === 'occupation' && VOLUNTARY_ZH.test(value)) continue;
    const holder = holderChinese(body, match.index, match[0].length);
    frames.set(holder ? `${name}@${holder}` : name, terms);
    if (name === 'residence' && !holder) {
      residence = { moved: match[0].startsWith('搬'), home: HOME_ZH.test(value), dated: /(?:19|20)\d\d年/u.test(body) };
    }
  }
  if (BIOGRAPHICAL_MOVE_ZH.test(body)) {
    frames.delete('residence');
    residence = null;
  }
  const eatenAgain = EATING_AGAIN_ZH.exec(body)?.[1];
  if (/纯素|全素|严格素食/.test(body)) frames.set('diet', new Set(['vegan']));
  else if (/吃素|素食/.test(body)) frames.set('diet', new Set(['vegetarian']));
  // "爱吃红烧肉", "每顿都要有肉": one who eats meat.
  else if (/吃肉|吃荤|开荤|爱吃[^，,。；;肉]{0,3}肉|(?:每顿|顿顿)[^，,。；;]{0,4}肉/.test(body))
    frames.set('diet', new Set(['omnivore']));
  else if (eatenAgain !== undefined) frames.set('diet', new Set([dietOfFood(eatenAgain)]));
  const marital = MARITAL_ZH.find(([pattern]) => pattern.test(body))?.[1];
  if (marital) frames.set('marital', new Set([marital]));
  markChangedAttributes(body, frames);
  const age = AGE_ZH.exec(body);
  if (age !== null && !ageOfAnAnimalZh(body, age.index)) {
    // "有一个五岁的女儿": the daughter's age, not 郑凯's.
    const holder = holderChinese(body, age.index, age[0].length);
    frames.set(holder ? `age@${holder}` : 'age', new Set([hanNumber(age[1] ?? '')]));
  }
  const make = CAR_MAKES_ZH.exec(body)?.[1];
  if (make !== undefined && /开|车|买了|换了|换成|提了/u.test(body)) frames.set('car', hanTerms(make));
  else if (NO_CAR.test(body)) frames.set('car', new Set([NO_VALUE]));
  const dose = doseFrame(body, DOSES_ZH, (said) => said.replace(/^(?:每天|每日|一天|早上|晚上)/u, ''));
  if (dose) frames.set(dose[0], dose[1]);
  const from = GIVEN_AWAY_ZH.exec(body)?.[1] ?? firstGroup(FROM_ZH.exec(body)) ?? SOLD_ZH.exec(trimmed)?.[1];
  const said = trimmed.replace(/[。！!]+$/u, '');
  const kv =
    KEY_VALUE_ZH.exec(said) ??
    BARE_KEY_VALUE_ZH.exec(said) ??
    KEY_SWITCH_ZH.exec(said) ??
    // "赵磊把手机换成了苹果": the key after the owner's name.
    KEY_SWITCH_ZH.exec(body.replace(/[。！!]+$/u, '')) ??
    NEW_KEY_ZH.exec(body) ??
    CHANGED_KEY_ZH.exec(said) ??
    NEW_VALUE_ZH.exec(body.replace(/[。！!]+$/u, ''));
  // "把手机换成了苹果": the value in the key's words ("苹果手机") names the alternative.
  markAlternatives(kv ? `${body} ${kv[2] ?? ''}${kv[1] ?? ''}` : body, from ?? '', negativeZh(body), frames);
  const petGoneMatch = PET_GONE_ZH.exec(body);
  const petGone = firstGroup(petGoneMatch);
  if (petGoneMatch !== null && petGone !== undefined) {
    // "赵磊女儿的猫送人了": the daughter's cat.
    const holder = holderChinese(body, petGoneMatch.index, petGoneMatch[0].length);
    frames.set(holder ? `count:${petGone.slice(0, 1)}@${holder}` : `count:${petGone.slice(0, 1)}`, new Set(['0']));
  }
  const counted = COUNT_ZH.exec(body);
  if (counted && petGone === undefined) {
    const numeral = counted[1] ?? '';
    frames.set(`count:${counted[2]}`, new Set([HAN_NUMERALS.get(numeral) ?? numeral]));
  }
  const keyValue =
    kv && !RELATIVES_ZH.some((r) => (kv[1] ?? '').startsWith(r)) && !OWNER_ONLY_ZH.test(kv[1] ?? '')
      ? {
          key: canonicalKey(hanTerms(kv[1] ?? '')),
          // The value ends with its clause: "改成 yu_lake2024 了，原来那个不用了".
          value: hanTerms(
            (kv[2] ?? '')
              .split(/[，,。；;]/u)[0]
              ?.replace(/^(?:现在|其实)/u, '')
              .replace(/\s*了$/u, '') ?? '',
            true,
          ),
        }
      : null;
  return {
    contentFree: content === '',
    topic: hanTerms(body),
    clauses,
    changed: CHANGE_ZH.test(body),
    prefers: PREFERS_ZH.test(body) || /喜欢/u.test(body),
    tentative: TENTATIVE_ZH.test(trimmed),
    relative,
    keyValue: keyValue && keyValue.key.size > 0 && keyValue.value.size > 0 ? keyValue : null,
    frames: heldBy(frames, relative),
    residence,
    from: from ? hanTerms(from) : new Set(),
    ended: ENDED_ZH.test(body),
    died: hanTerms(DIED_ZH.exec(trimmed)?.[1] ?? REHOMED_ZH.exec(trimmed)?.[1] ?? ''),
    keeps: /养|有一?[只条匹头]|(?:狗狗|狗|猫咪|猫|兔子|鹦鹉)(?:的名字)?叫/u.test(body),
  };
}

/** A named pet or animal that died, said at the start of a clause: "豆豆去年走了", "我们家的咪咪上个月死了". */
/** A named pet sent to live elsewhere: "旺财送去我表姐家了", "把咪咪送人了". */
const REHOMED_ZH = /(?:^|[，,。；;])(?:把)?(\p{Script=Han}{2,3}?)(?:被)?(?:送去|送到|送给|送人|送走)/u;
const DIED_ZH =
  /(?:^|[，,。；;])(?:[^，,。；;]{0,6}的)?(\p{Script=Han}{2,3}?)(?:去年|前年|今年|上个月|上周|前几天|昨天|前天|已经|也|突然)*(?:因为?[^，,。；;]{1,8}?)?(?:走了|去世了|死了|过世了|病死了|老死了|没了)/u;
