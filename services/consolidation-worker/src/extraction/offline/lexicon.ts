/**
 * Word lists the offline extractor reads clauses with: what a relation, a condition, a job or
 * an answer-style word is. Lists, not patterns: the grammar lives in english.ts / chinese.ts.
 */

export const RELATIONS_EN = [
  'wife',
  'husband',
  'partner',
  'fiancé',
  'fiancée',
  'fiance',
  'fiancee',
  'girlfriend',
  'boyfriend',
  'spouse',
  'son',
  'daughter',
  'kid',
  'child',
  'baby',
  'mom',
  'mum',
  'mother',
  'dad',
  'father',
  'brother',
  'sister',
  'grandmother',
  'grandma',
  'grandfather',
  'grandpa',
  'aunt',
  'uncle',
  'cousin',
  'niece',
  'nephew',
  'mother-in-law',
  'father-in-law',
  'in-laws',
  'friend',
  'best friend',
  'roommate',
  'flatmate',
  'neighbour',
  'neighbor',
  'boss',
  'manager',
  'colleague',
  'coworker',
  'co-worker',
  'cofounder',
  'co-founder',
  'teacher',
  'tutor',
  'coach',
  'trainer',
  'physio',
  'physiotherapist',
  'doctor',
  'gp',
  'dentist',
  'therapist',
  'surgeon',
  'vet',
  'supervisor',
  'landlord',
  'lawyer',
  'accountant',
  'builder',
  'plumber',
  'electrician',
  'nanny',
  'babysitter',
  'cleaner',
  'dog walker',
  'agent',
  'editor',
  'publisher',
  'mentor',
  'dog',
  'cat',
  'puppy',
  'kitten',
  'pet',
  'horse',
  'rabbit',
  'parrot',
] as const;

/** Relation words that name an animal: "a rescue greyhound called Pepper" also counts. */
export const PET_WORDS =
  /\b(dog|cat|puppy|kitten|pet|horse|rabbit|parrot|greyhound|labrador|terrier|spaniel|poodle|retriever|collie|hamster|budgie|tortoise)\b/i;

export const CONDITIONS_EN =
  /\b(diabetes|diabetic|asthma|asthmatic|arthritis|adhd|autism|autistic|dyslexia|dyslexic|epilepsy|migraines?|hypertension|high blood pressure|celiac|coeliac|ibs|crohn'?s|anxiety|depression|insomnia|alzheimer'?s|dementia|parkinson'?s|cancer|copd|eczema|psoriasis|lupus|thyroid|pcos|endometriosis|tinnitus|colou?rblind|claustrophobic|vertigo|sciatica|scoliosis|anemia|anaemia|gout|long covid|pregnant)\b/i;

export const INJURIES_EN =
  /\b(tore|torn|broke|broken|sprained|fractured|dislocated|pulled|injured|hurt|strained|ruptured|herniated)\b.{0,40}\b(acl|mcl|meniscus|knee|ankle|wrist|shoulder|back|hamstring|achilles|collarbone|clavicle|hip|elbow|rib|ribs|leg|arm|foot|hand|neck|disc|calf|thumb|finger)\b|\b(surgery|reconstruction|physio|rehab|recovering from|injury|plated)\b/i;

export const DIETS_EN =
  /\b(vegetarian|vegan|pescatarian|keto|paleo|gluten[- ]free|dairy[- ]free|lactose[- ]free|halal|kosher|low[- ]carb|low[- ]sodium|plant[- ]based)\b/i;

export const JOBS_EN =
  /\b(engineer|developer|programmer|teacher|nurse|doctor|designer|manager|student|lawyer|writer|scientist|accountant|chef|researcher|consultant|illustrator|artist|architect|analyst|pharmacist|dentist|therapist|librarian|journalist|photographer|electrician|plumber|carpenter|mechanic|pilot|paramedic|firefighter|officer|professor|lecturer|founder|ceo|cto|cfo|freelancer|contractor|musician|farmer|baker|barista|translator|editor|marketer|recruiter|administrator|technician|surgeon|midwife|vet|veterinarian|physiotherapist|social worker|data scientist|product manager)s?\b/i;

/** Objects that make a request one-off work for the assistant, not a fact about the user. */
export const DELIVERABLES_EN =
  /^(?:a |an |some |the |your |more )?(?:[\w-]+\s+){0,2}?(?:help|hand|idea|ideas|plan|list|quiz|draft|template|advice|suggestions?|recipes?|recommendations?|summary|outline|email|letter|script|review|feedback|tips|options|names?|workout|itinerary|schedule|table|breakdown|explanation|example|examples|version|rewrite|answer|quote|estimate|overview|checklist)\b/i;

/** Aspects of how the user wants answers, so two instructions on one aspect share a slot. */
export const ANSWER_ASPECTS_EN: Array<[RegExp, string]> = [
  [/\b(short|shorter|brief|concise|long|longer|detailed|one screen|one page|length|tl;?dr)\b/i, 'length'],
  [
    /\b(in|use|using)\s+(english|chinese|spanish|french|german|japanese|mandarin|cantonese|portuguese|italian)\b/i,
    'language',
  ],
  [/\b(metric|imperial|kilograms?|kg|pounds|lbs|celsius|fahrenheit|units?|miles|kilometres|kilometers)\b/i, 'units'],
  [/\b(us|uk|british|american) spelling\b/i, 'spelling'],
  [/\b(table|tables|bullet|bullets|bullet points|numbered|markdown|format|layout|font)\b/i, 'format'],
  [/\b(tone|friendly|formal|casual|polite|aggressive)\b/i, 'tone'],
  [/\b(apa|mla|chicago|harvard|citation|cite)\b/i, 'citations'],
  [/\b(watts|heart rate|power)\b/i, 'training_metric'],
  [/\b(correct|corrections|mistakes)\b/i, 'corrections'],
  [/\b(code|file|files|snippets?|migration|tests?|unwrap|comments?|examples?)\b/i, 'code'],
  [/\b(quiz|question|questions|answer key|spoilers?)\b/i, 'questions'],
  [/\b(jargon|explain|simple|lists?)\b/i, 'style'],
];

/** Words that make an instruction standing rather than one-off. */
export const STANDING_MARKERS_EN =
  /\b(always|never|every|each|all|from now on|in future|in the future|going forward|by default|whenever|any time|at all times|only|anymore|any more)\b|,\s*not\s+\w+|\bnot\s+\w+(?:\s+\w+)?,\s*not\b|^no\s+\w+/i;

export const ANSWER_OBJECTS_EN =
  /\b(answers?|responses?|replies|reply|respond|explanations?|emails?|code|examples?|units|spelling|language|format|tone|workouts?|corrections?|comments?|tables?|lists?|bullet points?|citations?|cite|quiz(?:zes)?|messages?|summaries|updates?|maps?|jargon|numbers|metric|disclaimers?|warnings?|caveats?|suggest|suggestions?|recommend|recommendations?)\b/i;
