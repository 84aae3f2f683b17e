import type { HistoryEntry, MemoryRecord } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Issue 11.1 through the REST API with the offline defaults: supersede and merge only what is
 * about the same thing, never merge text without content words, and say why in the history.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Written = { id: string; status: string; superseded_ids?: string[] };

async function store(body: Record<string, unknown>): Promise<Written> {
  const response = await t.app.inject({ method: 'POST', url: '/store', payload: body });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
}

async function memory(id: string): Promise<MemoryRecord> {
  return (await t.app.inject({ method: 'GET', url: `/v1/memories/${id}` })).json();
}

async function active(userId: string): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/v1/memories?user_id=${userId}&status=active&limit=1000`,
  });
  return (response.json().items as MemoryRecord[]).map((m) => m.content).sort();
}

const last = (entries: readonly HistoryEntry[]) => entries[entries.length - 1] as HistoryEntry;

describe('facts about different attributes of one person', () => {
  it('keeps every one of them, whatever the sentence shape', async () => {
    const facts = [
      'Maria is vegetarian',
      'Maria is learning to play the cello',
      'Maria dislikes spicy food',
      'Maria is lactose intolerant',
      'Maria is afraid of heights',
      'Maria is colour-blind',
      'Maria is allergic to penicillin',
      "Maria doesn't like horror movies",
      'Maria never drinks alcohol',
      'Maria is not a morning person',
      "Maria's husband Tom is a carpenter",
      "Maria's favourite colour is teal",
      "Maria's favourite food is ramen",
      'Maria lives in Lisbon',
      'Maria works as a nurse',
      '玛丽亚吃素',
      '玛丽亚不吃辣',
      '玛丽亚恐高',
    ];
    const replies = [];
    for (const content of facts) replies.push(await store({ content, memory_type: 'fact', user_id: 'maria' }));
    expect(replies.map((r) => r.status)).toEqual(facts.map(() => 'created'));
    expect(await active('maria')).toEqual([...facts].sort());
  });

  it('keeps where one lives when a later fact tells of a move in childhood', async () => {
    const pairs = [
      [
        'Olivia lives in a terraced house with a small garden.',
        'Olivia was born in Cape Town and moved to England at twelve.',
      ],
      [
        'The user lives in Manchester with two flatmates.',
        'The user grew up in Lagos and moved to the UK at eighteen.',
      ],
      ['I live in Leeds', 'I moved to York when I was ten'],
      ['刘洋住在成都。', '刘洋十二岁时搬到了上海。'],
    ];
    for (const [i, [home, move]] of pairs.entries()) {
      const user = `childhood-move-${i}`;
      await store({ content: home, memory_type: 'fact', user_id: user });
      expect((await store({ content: move, memory_type: 'fact', user_id: user })).status).toBe('created');
      expect(await active(user)).toEqual([home, move].sort());
    }
  });

  it.each([
    [
      'en-home-after-move',
      'Olivia moved to Scotland in 2015.',
      'Olivia lives in a stone cottage in Leith with a big garden.',
    ],
    [
      'en-dated-move-after-home',
      'Kofi lives in a two-bedroom flat in Peckham.',
      'Kofi moved to London in 2009 for his studies.',
    ],
    ['en-first-person', 'I moved to Leeds', 'I live in a semi-detached house in Roundhay'],
    ['zh-home-after-move', '我2018年从武汉搬到了杭州。', '我住在西湖区的一套公寓里。'],
    ['zh-dated-move-after-home', '刘洋住在朝阳区的一套两居室里。', '刘洋2016年从天津搬到了北京。'],
  ])('%s: keeps a move and a description of the home, "%s" and "%s"', async (user, older, newer) => {
    await store({ content: older, memory_type: 'fact', user_id: user });
    expect((await store({ content: newer, memory_type: 'fact', user_id: user })).status).toBe('created');
    expect(await active(user)).toEqual([older, newer].sort());
  });

  it.each([
    ['en-relative-age', 'Olivia has a daughter who is 7 years old.', 'Olivia is 38 years old.'],
    ['en-relative-age-after', 'Olivia is 38 years old.', 'Olivia has a son named Leo, who is 12.'],
    ['en-relative-job', 'Kofi has a brother who works at Barclays.', 'Kofi works at Deloitte.'],
    ['zh-relative-age', '刘洋有一个三岁的儿子。', '刘洋今年三十六岁。'],
    ['zh-relative-age-first-person', '我有个女儿今年十岁。', '我今年四十二岁。'],
    ['zh-relative-job', '刘洋有个弟弟在上海工作。', '刘洋在北京工作。'],
  ])('%s: keeps the owner\'s own slot apart from a relative\'s, "%s" and "%s"', async (user, older, newer) => {
    await store({ content: older, memory_type: 'fact', user_id: user });
    expect((await store({ content: newer, memory_type: 'fact', user_id: user })).status).toBe('created');
    expect(await active(user)).toEqual([older, newer].sort());
  });

  it('keeps extracted items of different keys apart, even when they answer the same question', async () => {
    const query = 'What health or diet constraints does the user have?';
    const first = await store({
      content: 'The user is vegetarian',
      memory_type: 'fact',
      user_id: 'keys',
      query,
      metadata: { key: 'health.vegetarian' },
    });
    const second = await store({
      content: 'The user is lactose intolerant',
      memory_type: 'fact',
      user_id: 'keys',
      query,
      metadata: { key: 'health.lactose_intolerant' },
    });
    expect([first.status, second.status]).toEqual(['created', 'created']);

    const moved = await store({
      content: 'Lives in Madrid now',
      memory_type: 'fact',
      user_id: 'keys',
      query: 'Where does the user live?',
      metadata: { key: 'identity.location' },
    });
    const movedAgain = await store({
      content: 'Lives in Porto',
      memory_type: 'fact',
      user_id: 'keys',
      query: 'Where does the user live?',
      metadata: { key: 'identity.location' },
    });
    expect(movedAgain).toMatchObject({ status: 'superseded', superseded_ids: [moved.id] });
    expect(last((await memory(moved.id)).history).reason).toBe('rule:same-key');
  });
});

describe('the same sentence shape about another thing', () => {
  it.each([
    ['drive-kids', 'I drive a Toyota', 'I drive my kids to school'],
    ['drive-van', 'I drive a Toyota', 'I drove the van to Leeds'],
    ['office-moved', 'I live in Berlin', 'My office moved to Potsdam'],
    ['live-near', 'I live in Berlin', 'I live near the river'],
    ['work-with', 'I work at Google', 'I work with kids at the weekend as a volunteer'],
    ['joined-club', 'I work at Google', 'I joined a book club'],
    // A relative moved somewhere is not a key said as it changes.
    ['switched-son', 'My son is 12', 'I switched my son to a new school'],
    ['zh-company-moved', '我住在北京', '我公司搬到了天津'],
    ['zh-live-together', '我住在北京', '我和父母住在一起'],
    ['zh-work-from-home', '我在腾讯工作', '我周五在家工作'],
    // One place in the other (by the gazetteer): both true.
    ['city-in-country', 'I live in Leeds', 'I live in England'],
    ['move-within-state', 'I live in Texas', 'I moved to Austin'],
    ['move-within-country', 'I live in Berlin', 'I moved to Germany'],
    ['neighbourhood-after-move', 'I moved to Madrid', 'I live in the Salamanca neighbourhood'],
    // A role one volunteers for or does on the side is not one's occupation.
    ['volunteer-role', 'Tomasz is a qualified electrician', 'Tomasz is a volunteer firefighter'],
    ['part-time-role', 'Ines works as a nurse', 'Ines is also a part-time barista'],
    // A relative introduced with 有个 is the subject of the rest of the clause, wherever it works.
    ['zh-brother-works-elsewhere', '小雨是一名儿科护士', '小雨有个弟弟在深圳做程序员'],
    ['zh-daughter-studies-elsewhere', '我是一名会计', '我有一个女儿在上海当老师'],
    // The relative a sentence introduces holds the ages of its later clauses; an age at an event is no age now.
    ['zh-introduced-son-age', '李师傅今年四十五岁', '李师傅还有个儿子，叫小宝，刚满三岁'],
    ['zh-age-at-event', '李师傅今年四十五岁', '李师傅十八岁就去当了兵'],
    ['zh-age-at-event-then', '陈老师今年三十二岁', '陈老师二十岁那年去了北京读书'],
    // A friend named after the relative word is who the clause is about.
    ['zh-friend-named', '何晓东是一名软件测试工程师。', '他最好的朋友阿杰是一名消防员。'],
    // A profession word qualifying another noun is not an occupation ("the police drama").
    [
      'profession-as-modifier',
      'I work as a senior structural engineer designing footbridges.',
      'My favourite TV show is the police drama Line of Duty.',
    ],
    // Where one works is not where one lives.
    [
      'based-at-office',
      "My employer is Arup, and I'm based at their Charlotte Street office.",
      'We live in a terraced house in Walthamstow.',
    ],
    // A change of one attribute said of a relative, another attribute or another thing.
    ['brother-married-in-may', 'Sara is single', "Sara's brother got married in May"],
    ['moved-in-may', 'Sara is single', 'Sara moved to Leeds in May'],
    ['zh-sister-married', '陈静是单身', '陈静的姐姐去年五月结婚了'],
    ['red-lentils-again', 'Omar is vegetarian', 'Omar has started eating red lentils again'],
    ['drinking-tea', 'Leo gave up drinking', 'Leo has started drinking green tea'],
    ['glass-of-water', "Leo doesn't drink alcohol", 'Leo has a glass of water before bed'],
    [
      'not-allergic-other',
      'Sam is allergic to shellfish',
      'Sam is not allergic to penicillin after all, the test came back negative',
    ],
    ['zh-not-allergic-other', '小王对花生过敏', '小王其实对青霉素不过敏，检查结果是阴性'],
    ['quit-choir', 'Ana works at a bakery', 'Ana quit the choir in the winter'],
    ['promoted-league', 'Kai is a nurse', 'Kai was promoted to the first team'],
    ['zh-club-role', '刘敏是一家银行的客户经理', '刘敏是读书会的组长'],
    ['zh-partner-promoted', '刘敏是一家银行的客户经理', '刘敏的丈夫升职了，现在是销售总监'],
    ['zh-ideal', '王磊开的是大众帕萨特', '王磊的理想是环游世界'],
    ['other-pet-rehomed', 'Ben has two cats', 'Ben rehomed his dog last year'],
    ['zh-other-pet-given-away', '赵磊养了一条狗', '赵磊的猫去年送人了'],
    ['zh-daughters-cat', '赵磊养了两只猫', '赵磊女儿的猫送人了'],
    ['home-some-days', 'Tom works from home on Fridays', 'Tom is back in the office full time'],
    ['keys-in-office', 'Tom works from home', 'Tom left his keys in the office'],
    ['zh-office-employer', '小林在腾讯工作', '小林回到办公室上班了'],
    ['changed-gyms', "Lena's dentist is Dr Patel", 'Lena changed gyms and now goes to PureGym'],
    ['shaved-other', 'Raj has a beard', 'Raj shaved off his moustache'],
    ['shaved-head', 'Raj has a moustache', 'Raj shaved his head'],
    ['gave-up-yoga', 'Ines supports Arsenal', 'Ines gave up on yoga and took up pilates'],
    ['gave-up-tour', 'Ines supports Arsenal', 'Ines gave up on the Arsenal stadium tour'],
    // A new thing of another key: the phone itself, a lucky number.
    ['new-phone-device', "Dana's phone number is 0612 345 678", 'Dana has a new phone: a Pixel 8'],
    ['lucky-number', "Dana's phone number is 0612 345 678", "Dana's lucky number is 7"],
    // Playing for fun, or a relative's team.
    ['plays-for-fun', 'Lars plays centre-back for Vale United', 'Lars plays the piano for fun'],
    ['sons-team', 'Lars plays for Vale United', "Lars's son plays for Harbour Town Juniors"],
    // Someone else named first, then who they are.
    ['apposed-friend', "Noor's brother Sami is an accountant", "Lina, Noor's best friend, works as a chef"],
    ['liked-best-other', "Eva's favourite film is Amélie", 'The book Eva likes best is Middlemarch'],
    ['gave-up-other', 'I drink three coffees a day', "I've given up sugar completely"],
    ['stopped-part', 'Ola runs 20 km every week', 'Ola stopped running on the treadmill'],
    ['other-relative-moved', "Kofi's sister lives in Accra", "Kofi's brother has moved to Kumasi"],
    ['zh-other-reading', '小刘在读法律专业', '小刘最近不读小说了'],
    // A device bought for someone else is theirs.
    ['zh-phone-gift', '老陈用的是苹果手机', '老陈给妈妈买了一部华为手机'],
    ['phone-gift', 'Ravi uses an iPhone', 'Ravi bought his mum a Pixel'],
    ['zh-sold-other', '阿强有一辆雅马哈摩托车', '阿强把旧自行车卖了'],
    ['zh-moved-from-other', '小周在华为当工程师', '小周从上海搬到了深圳'],
    ['zh-stopped-other', '阿强每周踢两次足球', '阿强不喝可乐了'],
    // Another animal died; a person died whose job the older fact tells.
    ['zh-other-pet-died', '小雪养了一只布偶猫叫年糕', '邻居家的狗豆豆去年走了'],
    ['other-name-died', 'Mia has a beagle called Pepper', "Mia's grandfather Pepe died in 2019"],
    ['person-died', "Mia's grandfather Joe was a miner", 'Joe died last winter'],
    // Another one's job; how one gets to work is not where.
    ['zh-own-job-not-mums', '小刘的妈妈是小学老师', '小刘在超市当收银员'],
    ['zh-commute', '赵磊在腾讯当产品经理', '赵磊现在坐地铁上班'],
    // Relatives said short after 我 are not the owner, nor each other.
    ['zh-short-relatives-work', '我弟在工厂上班', '我妹在学校上班'],
    ['zh-grandparents-live', '我外公住在海边', '我外婆住在医院'],
    ['zh-sister-in-law', '我姐在上海当律师', '我弟媳在上海当会计'],
    // Millet is no phone; a school move is no home; another child's school.
    ['zh-millet', '我早上喝小米粥', '我用的是华为手机'],
    ['school-not-home', 'My son lives with his mum in Derby', 'My son moved to Oakfield Academy in September'],
    ['other-childs-school', 'My son goes to Hill Top Primary', 'My daughter moved to Greenway Academy'],
  ])('%s: keeps "%s" when told "%s"', async (user, older, newer) => {
    await store({ content: older, memory_type: 'fact', user_id: `shape-${user}` });
    expect((await store({ content: newer, memory_type: 'fact', user_id: `shape-${user}` })).status).toBe('created');
    expect(await active(`shape-${user}`)).toEqual([older, newer].sort());
  });
});

describe('contradictions said in other words', () => {
  it.each([
    ['use-as', 'Our supplier is Acme', 'We now use Globex as our supplier', 'rule:same-key'],
    ['switched-key', 'Our supplier is Acme', 'We switched our supplier to Globex', 'rule:same-key'],
    ['switch-key', 'The database is PostgreSQL', 'Switch the database to MySQL', 'rule:same-key'],
    ['key-changed', 'My email is anna@old-mail.com', 'My email changed to anna@new-mail.com', 'rule:same-key'],
    ['hired-as', 'Our accountant is Dana Whitfield', 'We hired Marco Rossi as our accountant', 'rule:same-key'],
    ['cheese-again', 'I am vegan', "I'm eating cheese again", 'rule:same-attribute:diet'],
    ['weight', 'I weigh 80 kg', 'I weigh 75 kg now', 'rule:same-attribute:weight'],
    ['relative-named', 'I have a son who is 12', 'My son is 13 now', 'rule:same-attribute:age@son'],
    ['zh-key-changed', '我们的供应商是蓝天乳业', '我们的供应商改成白云乳业了', 'rule:same-key'],
    ['zh-key-switched', '我们的供应商是蓝天乳业', '我们把供应商换成了白云乳业', 'rule:same-key'],
    ['zh-car-switched', '我开丰田', '我换成特斯拉了', 'rule:same-attribute:car'],
    ['zh-vegan-eggs', '我吃纯素', '我又开始吃鸡蛋了', 'rule:same-attribute:diet'],
    ['zh-weight', '我的体重是80公斤', '我现在体重75公斤', 'rule:same-attribute:weight'],
    ['country-to-city-elsewhere', 'I live in Spain', 'I moved to Tokyo', 'rule:same-attribute:residence'],
    // People named as a group move as the owner does (not a thing's move).
    ['couple-moved', 'The couple live in Leeds', 'The couple moved to York', 'rule:same-attribute:residence'],
    ['family-name-moved', 'The Smiths live in Leeds', 'The Smiths moved to York', 'rule:same-attribute:residence'],
    ['state-to-city-elsewhere', 'I live in California', 'I moved to Austin', 'rule:same-attribute:residence'],
    // "in May" is a month, not a doubt.
    ['engaged-in-may', 'Tariq is single', 'Tariq got engaged in May', 'rule:same-attribute:marital'],
    ['divorced-last-may', 'Sara is married', 'Sara got divorced last May', 'rule:same-attribute:marital'],
    ['zh-married', '陈静是单身', '陈静上个月和男友领证了', 'rule:same-attribute:marital'],
    // Taking up again what one gave up.
    ['red-meat-again', 'Omar is vegetarian', 'Omar went back to eating red meat', 'rule:same-attribute:diet'],
    ['odd-pint', 'Leo is teetotal', 'Leo has the odd pint these days', 'rule:same-attribute:alcohol'],
    ['drinking-again', 'Leo gave up drinking', 'Leo has started drinking again', 'rule:same-attribute:alcohol'],
    ['zh-drinking-again', '老李戒酒了', '老李现在偶尔喝一杯红酒', 'rule:same-attribute:alcohol'],
    // A denial followed by a clause saying why.
    [
      'not-allergic-after-all',
      'Sam is allergic to shellfish',
      "Sam isn't allergic to shellfish after all, the allergist said the rash was caused by stress",
      'rule:negation',
    ],
    ['zh-not-allergic', '小王对花生过敏', '小王其实对花生不过敏，检查结果是阴性', 'rule:negation'],
    // Leaving a job at a named place.
    ['quit-named-job', 'Ana works at a bakery', 'Ana quit the bakery job in the spring', 'rule:changed-from'],
    ['left-job-at', 'Ana works at Siemens', 'Ana left her job at Siemens', 'rule:same-attribute:employer:negated'],
    ['zh-quit-job', '小美在一家面包店兼职', '小美辞掉了面包店的工作', 'rule:same-attribute:employer:changed'],
    // A promotion to a new title.
    ['promoted-to', 'Kai is a nurse', 'Kai was promoted to ward manager', 'rule:same-attribute:occupation'],
    ['zh-promoted', '刘敏是一家银行的客户经理', '刘敏升职为支行行长了', 'rule:same-attribute:occupation'],
    ['zh-promoted-now', '刘敏是一家银行的客户经理', '刘敏升任区域总监', 'rule:same-attribute:occupation'],
    // 理想 is a make of car, not a wish.
    ['zh-car-ideal', '王磊开的是大众帕萨特', '王磊把车换成了理想L6', 'rule:same-attribute:car'],
    // A pet given away.
    ['pets-rehomed', 'Ben has two cats', 'Ben rehomed his cats last year', 'rule:same-attribute:count:cat'],
    ['zh-pet-given-away', '赵磊养了两只猫', '赵磊把猫送人了', 'rule:same-attribute:count:猫'],
    ['zh-no-pet-now', '赵磊养了一条狗', '赵磊的狗送走了，现在不养狗了', 'rule:same-attribute:count:狗'],
    // Back in the office after working from home.
    ['back-at-office', 'Tom works from home', 'Tom is back at the office', 'rule:same-attribute:workplace'],
    ['zh-back-at-office', '小林居家办公', '小林回到办公室上班了', 'rule:same-attribute:workplace'],
    // "changed dentists and now sees …": the new value of the key it changed.
    ['now-sees', "Lena's doctor is Dr Patel", 'Lena switched doctors and now sees Dr Lee', 'rule:same-key'],
    ['now-banks-with', "Lena's bank is Barclays", 'Lena switched banks and now banks with Monzo', 'rule:same-key'],
    // Shaving off what one had.
    ['shaved-off', 'Raj has a moustache', 'Raj shaved off his moustache', 'rule:negation'],
    // Giving up on what one supported.
    ['gave-up-on', 'Ines supports Arsenal', 'Ines has given up on Arsenal and now follows Spurs', 'rule:changed-from'],
    // The same key however worded: a new mobile or phone number, a new email.
    ['new-mobile', "Dana's mobile number is 0612 345 678", 'Dana has a new mobile: 0698 765 432', 'rule:same-key'],
    ['zh-new-email', '小周的邮箱是zhou@old.cn', '小周换了个新邮箱：zhou@new.cn', 'rule:same-key'],
    ['zh-new-phone-number', '老陈的电话号码是13700001111', '老陈换了新手机号，现在是13755552222', 'rule:same-key'],
    // "the X one likes best" is one's favourite X.
    ['liked-best', "Eva's favourite film is Amélie", 'The film Eva likes best is Paddington 2', 'rule:same-key'],
    // The team one plays for.
    [
      'switched-clubs',
      'Lars plays centre-back for Vale United',
      'Lars now plays for Harbour Town after switching clubs',
      'rule:same-attribute:team',
    ],
    ['switched-teams-unnamed', 'Lars plays for Vale United', 'Lars switched teams', 'rule:same-attribute:team:changed'],
    // A relative named first, then who they are; a relative's move.
    [
      'apposed-brother',
      "Noor's brother Sami is an accountant",
      "Sami, Noor's brother, now works as a chef",
      'rule:same-attribute:occupation@brother',
    ],
    [
      'relative-relocated',
      "Kofi's sister lives in Accra",
      "Kofi's sister has relocated to Kumasi",
      'rule:same-attribute:residence@sister',
    ],
    // Giving up what one does so often (how often is not what it is about).
    ['stopped-altogether', 'Ola runs 20 km every week', 'Ola has stopped running altogether', 'rule:negation'],
    ['zh-stopped-sport', '阿强每周踢两次足球', '阿强腰受伤后就不踢足球了，改打乒乓球', 'rule:negation'],
    ['zh-changed-major', '小刘在读法律专业', '小刘转学医了，不读法律了', 'rule:negation'],
    // A thing switched to another of its kind, sold, or left.
    ['zh-phone-switched', '老陈用的是苹果手机', '老陈把手机换成了华为', 'rule:same-attribute:phone'],
    ['zh-sold', '阿强有一辆雅马哈摩托车', '阿强把雅马哈卖掉了', 'rule:changed-from'],
    ['zh-left-employer', '小周在华为当工程师', '小周从华为离职了，去了小米', 'rule:same-attribute:employer:changed'],
    // A relative's job said in a later clause.
    [
      'zh-mums-new-job',
      '小刘的妈妈是小学老师',
      '小刘的妈妈现在不教书了，在超市当收银员',
      'rule:same-attribute:occupation@妈妈',
    ],
    // A pet one kept died.
    ['pet-died', 'Mia has a beagle called Pepper', 'Pepper died in the spring', 'rule:died'],
    ['zh-pet-died', '小雪养了一只布偶猫叫年糕', '年糕上个月病死了', 'rule:died'],
    // A relative's school, a diet one has been on since, an engagement called off, a parent moving in.
    [
      'school-moved',
      'My son goes to Hill Top Primary',
      'My son switched to Greenway Academy after half term',
      'rule:same-attribute:school@son',
    ],
    ['zh-school-moved', '我女儿在第一中学读初二', '我女儿转到外国语中学了', 'rule:same-attribute:school@女儿'],
    ['been-vegan', 'I eat chicken most weeks', "I've been vegan since March", 'rule:same-attribute:diet'],
    [
      'engagement-off',
      'Leon is engaged to Mara',
      'Leon and Mara have called off their engagement',
      'rule:same-attribute:marital',
    ],
    ['zh-partner-split', '小雅有女朋友，叫小琪', '小雅和小琪分手了', 'rule:partner-ended'],
    [
      'bare-dad-moved',
      'My dad lives in Swansea',
      'Dad has moved in with us in Exeter',
      'rule:same-attribute:residence@dad',
    ],
    ['zh-grandpa-moved-here', '我爷爷住在山里', '我爷爷搬来县城跟我们住了', 'rule:same-attribute:residence@爷爷'],
    // A phone of another make; a relative quitting a habit; a workplace left; a major changed.
    ['zh-phone-make', '我用的是小米13', '我现在用荣耀Magic6', 'rule:same-attribute:phone-make'],
    ['zh-uncle-quit-smoking', '我舅舅每天抽两包烟', '我舅舅把烟戒掉了', 'rule:same-attribute:smoking@舅舅'],
    [
      'zh-left-workplace',
      '小周在一家装修公司做监理',
      '小周辞职了，现在自己开店',
      'rule:same-attribute:employer:changed',
    ],
    ['zh-major-changed', '阿华在读土木专业', '阿华换专业了，改学金融', 'rule:same-attribute:major:changed'],
  ])('%s: "%s" is superseded by "%s" (%s)', async (user, older, newer, reason) => {
    const old = await store({ content: older, memory_type: 'fact', user_id: `said-${user}` });
    const next = await store({ content: newer, memory_type: 'fact', user_id: `said-${user}` });
    expect(next).toMatchObject({ status: 'superseded', superseded_ids: [old.id] });
    expect(last((await memory(old.id)).history)).toMatchObject({ action: 'superseded', reason });
  });
});

describe('contradictions', () => {
  it.each([
    ['en-coffee', 'The user likes coffee', 'The user has quit coffee'],
    ['en-move', 'Tom lives in Berlin', 'Tom moved from Berlin to Madrid'],
    ['en-vegetarian', 'Maria is vegetarian', 'Maria is no longer vegetarian'],
    ['zh-vegetarian', '我吃素', '我不再吃素了'],
    ['zh-move', '我住在北京', '我从北京搬到上海了'],
    // A move from the home described, a home said as a change, a new value of a relative's own slot.
    ['en-home-left', 'Ingrid lives in a flat in Berlin', 'Ingrid moved from Berlin to Madrid'],
    ['en-home-now', 'Kofi moved to Leeds', 'Kofi now lives in a flat in York'],
    ['en-own-age', 'Olivia has a daughter who is 7. Olivia is 38 years old.', 'Olivia is 39 years old'],
    ['en-relative-age', 'Olivia has a daughter who is 7 years old', 'Olivia has a daughter who is 8 years old'],
    ['zh-home-left', '我住在南山区的一套公寓里', '我从南山区搬到了福田区'],
    ['zh-own-age', '刘洋今年三十六岁', '刘洋今年三十七岁了'],
    ['zh-relative-age', '刘洋有一个三岁的儿子', '刘洋有一个四岁的儿子了'],
    ['zh-introduced-relative-age', '刘洋有个女儿，叫朵朵，今年三岁', '刘洋的女儿朵朵今年四岁了'],
  ])('%s: "%s" is superseded by "%s", with the rule in both histories', async (user, older, newer) => {
    await store({ content: 'The user has two cats', memory_type: 'fact', user_id: user });
    const old = await store({ content: older, memory_type: 'fact', user_id: user });
    const next = await store({ content: newer, memory_type: 'fact', user_id: user });
    expect(next).toMatchObject({ status: 'superseded', superseded_ids: [old.id] });

    const superseded = await memory(old.id);
    expect(superseded).toMatchObject({ status: 'superseded', superseded_by: next.id });
    expect(last(superseded.history)).toMatchObject({ action: 'superseded', reason: expect.stringMatching(/^rule:/) });
    expect((await memory(next.id)).history[0]).toMatchObject({
      action: 'created',
      note: `supersedes ${old.id}`,
      reason: last(superseded.history).reason,
    });
    const history = (await t.app.inject({ method: 'GET', url: `/v1/memories/${next.id}/history` })).json();
    expect(history.entries.some((e: HistoryEntry) => e.action === 'superseded' && e.reason)).toBe(true);
  });

  it.each([
    ['far-move', 'I live in Denver', "I've moved to Austin"],
    ['far-platform', 'The user uses Linux', 'The user switched to Windows'],
    ['far-drink', 'Nadia drinks alcohol', 'Nadia is teetotal now'],
    ['far-zh-car', '我开丰田', '我现在开特斯拉'],
    // A bare age says its attribute without its words ("age", "years old").
    ['far-age', 'I am 41', 'I am 42 now'],
    ['far-vegan', 'The user is a vegan', 'The user started eating fish again'],
    ['far-zh-fish', '我吃素', '我又开始吃鱼了'],
  ])(
    '%s: "%s" is superseded by "%s", which shares no word with it, among many other facts',
    async (user, older, newer) => {
      const others = [
        'The user has two cats',
        'The user is allergic to penicillin',
        'The user likes hiking on weekends',
        'The user speaks German and French',
        'The user is learning the violin',
        'The user prefers short answers',
        'The user is afraid of spiders',
        'The user reads science fiction',
        '用户喜欢爬山',
        '用户对花生过敏',
      ];
      for (const content of others) await store({ content, memory_type: 'fact', user_id: user });
      const old = await store({ content: older, memory_type: 'fact', user_id: user });
      for (const content of ['The user collects stamps', 'The user plays chess online']) {
        await store({ content, memory_type: 'fact', user_id: user });
      }
      const next = await store({ content: newer, memory_type: 'fact', user_id: user });
      expect(next).toMatchObject({ status: 'superseded', superseded_ids: [old.id] });
      expect(last((await memory(old.id)).history).reason).toMatch(/^rule:same-attribute:/);
      expect(await active(user)).toHaveLength(others.length + 3);
    },
  );

  it('never supersedes what a refinement only adds detail to', async () => {
    const old = await store({ content: 'Maria is allergic to peanuts', memory_type: 'fact', user_id: 'refine' });
    const next = await store({
      content: 'Maria is allergic to peanuts and shellfish',
      memory_type: 'fact',
      user_id: 'refine',
    });
    expect(next.status).not.toBe('superseded');
    expect((await memory(old.id)).status).toBe('active');
  });
});

describe('merges', () => {
  it('merges a restatement into what it restates, saying why', async () => {
    const old = await store({ content: 'The user likes green tea', memory_type: 'preference', user_id: 'restate' });
    const again = await store({ content: 'The user likes green tea!', memory_type: 'preference', user_id: 'restate' });
    expect(again).toMatchObject({ status: 'merged', id: old.id });
    const merged = await memory(old.id);
    expect(merged.content).toBe('The user likes green tea!');
    expect(last(merged.history)).toMatchObject({
      action: 'merged',
      content: 'The user likes green tea',
      reason: 'rule:same-topic',
    });
  });

  it.each(['ok', 'hello', '?', '👍', '"', 'thanks!', '好的', '哈哈'])(
    'stores "%s" (no content words) as its own memory, never merged into anything',
    async (junk) => {
      const user = `junk-${Buffer.from(junk).toString('hex')}`;
      const tea = await store({ content: 'The user likes green tea', memory_type: 'preference', user_id: user });
      const written = await store({ content: junk, memory_type: 'preference', user_id: user });
      expect(written.status).toBe('created');
      expect(written.id).not.toBe(tea.id);
      expect(await memory(tea.id)).toMatchObject({
        content: 'The user likes green tea',
        status: 'active',
        proof_count: 1,
      });
      // And the other way round: a real fact is never merged into the content-free one.
      const later = await store({
        content: 'The user likes green tea a lot',
        memory_type: 'preference',
        user_id: user,
      });
      expect(later.id).not.toBe(written.id);
      expect((await memory(written.id)).content).toBe(junk);
    },
  );
});

describe('a batch', () => {
  it('decides as the same writes one at a time would, item after item', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: {
        items: [
          { content: 'Tom lives in Berlin', memory_type: 'fact', user_id: 'batch' },
          { content: 'Tom is afraid of heights', memory_type: 'fact', user_id: 'batch' },
          { content: 'The user likes green tea', memory_type: 'preference', user_id: 'batch' },
          { content: 'Tom moved from Berlin to Madrid', memory_type: 'fact', user_id: 'batch' },
          { content: 'The user likes green tea!', memory_type: 'preference', user_id: 'batch' },
        ],
      },
    });
    expect(response.statusCode).toBe(201);
    const [berlin, heights, tea, madrid, teaAgain] = response.json().items as Written[];
    expect(madrid).toMatchObject({ status: 'superseded', superseded_ids: [berlin?.id] });
    expect(teaAgain).toMatchObject({ status: 'merged', id: tea?.id });
    expect(heights?.status).toBe('created');
    expect(await active('batch')).toEqual([
      'The user likes green tea!',
      'Tom is afraid of heights',
      'Tom moved from Berlin to Madrid',
    ]);
    expect(last((await memory(berlin?.id as string)).history)).toMatchObject({
      action: 'superseded',
      reason: expect.stringMatching(/^rule:/),
    });
  });
});

describe('a reversal', () => {
  it('supersedes the standing memory of its slot, however far it lies from it in meaning and words', async () => {
    const user = 'reversal-far';
    const venue = await store({
      content: 'The user decided to hold the book launch at Daunt Books in Marylebone.',
      memory_type: 'decision',
      user_id: user,
      query: 'Where will the book launch be?',
      metadata: { key: 'decision.launch_venue', answer: 'Daunt Books' },
    });
    // Many later decisions, each nearer to the reversal's words than the venue is.
    const others = [
      'go with the blue cover',
      'go with a paperback first',
      'go with Faber for the audiobook',
      'go with a Friday release',
      'go with the shorter title',
      'go with a signed edition',
      'go with wine and crisps',
      'go with a reading of chapter one',
      'go with printed invitations',
      'go with a local photographer',
      'go with a Q&A after the reading',
      'go with the indie bookshop tour',
    ];
    for (const [i, choice] of others.entries()) {
      await store({
        content: `The user decided to ${choice}.`,
        memory_type: 'decision',
        user_id: user,
        metadata: { key: `decision.choice_${i}`, answer: choice.replace('go with ', '') },
      });
    }
    const reversal = await store({
      content: 'The user decided to go with Foyles.',
      memory_type: 'decision',
      user_id: user,
      query: 'What did the user decide?',
      metadata: { key: 'decision.launch_venue', answer: 'Foyles', replaces: 'Daunt Books' },
    });
    expect(reversal).toMatchObject({ status: 'superseded', superseded_ids: [venue.id] });
    expect(await memory(venue.id)).toMatchObject({ status: 'superseded', superseded_by: reversal.id });
    // The other decisions stand.
    expect(await active(user)).toEqual(
      [...others.map((choice) => `The user decided to ${choice}.`), 'The user decided to go with Foyles.'].sort(),
    );
  });
});

describe('a job ended in words that name no work', () => {
  it.each([
    [
      'ended-redundant',
      "I'm a warehouse supervisor at the Amazon depot in Dartford",
      "I was made redundant in May and I'm out of work at the moment",
    ],
    [
      'ended-retired',
      'Works as a signalman for Network Rail on the Settle line',
      'Finally retired in March after forty years',
    ],
  ])('%s: ends the job, however many facts lie nearer to its words', async (user, job, ended) => {
    const first = await store({ content: job, memory_type: 'fact', user_id: user });
    const others = [
      'I was born in May 1968 in Gravesend',
      'I go to the pub quiz at the Red Lion on Thursdays',
      'I have been out walking the dog every morning',
      'I moved into a bungalow in Dartford in 2015',
      'I am at the allotment most weekends',
      'I was at school with my best mate Dave',
      'My daughter is at university in Leeds',
      'I support Charlton Athletic',
      'In May we always go to Margate for a week',
      'I am allergic to penicillin',
      'My wife Sharon is a dinner lady',
      'I drive a blue 2014 Vauxhall Astra',
    ];
    for (const content of others) await store({ content, memory_type: 'fact', user_id: user });
    const after = await store({ content: ended, memory_type: 'fact', user_id: user });
    expect(after).toMatchObject({ status: 'superseded', superseded_ids: [first.id] });
    expect(await active(user)).toEqual([...others, ended].sort());
  });
});

describe('conversation time', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 4, 9, minute)).toISOString();

  it.each([
    ['time-en', 'The user lives in Berlin', 'The user lives in Lisbon'],
    ['time-zh', '用户在北京工作', '用户在上海工作'],
    ['time-age', "The user's daughter Mia is seven years old", "The user's daughter Mia is eight years old"],
  ])(
    '%s: a statement said earlier, written after a newer one it contradicts, is kept as history',
    async (user, earlier, later) => {
      // The agent writes the user's correction at once; the worker's note from an earlier turn comes after it.
      const correction = await store({ content: later, memory_type: 'fact', user_id: user, occurred_at: at(5) });
      const note = await store({ content: earlier, memory_type: 'fact', user_id: user, occurred_at: at(1) });
      expect(note).toMatchObject({ status: 'created', superseded_by: correction.id });
      expect(note.superseded_ids).toBeUndefined();

      expect(await memory(correction.id)).toMatchObject({ status: 'active', content: later, superseded_by: null });
      const historical = await memory(note.id);
      expect(historical).toMatchObject({
        status: 'superseded',
        superseded_by: correction.id,
        valid_until: at(5),
        occurred_at: at(1),
      });
      expect(historical.history).toHaveLength(1);
      expect(historical.history[0]).toMatchObject({
        action: 'created',
        content: earlier,
        note: `superseded on arrival by ${correction.id}: said at ${at(1)}, before it (${at(5)})`,
        reason: expect.stringMatching(/^rule:.+:older$/),
      });
      expect(await active(user)).toEqual([later]);
      // Search answers the correction; with superseded ones asked for, both, the correction first.
      const found = await t.app.inject({
        method: 'POST',
        url: '/retrieve',
        payload: { query: later, user_id: user, include_superseded: true },
      });
      const contents = (found.json().results as Array<{ content: string }>).map((r) => r.content);
      expect(contents).toContain(earlier);
      expect(contents.indexOf(later)).toBeLessThan(contents.indexOf(earlier));
      // The history of the correction shows the note it outlived, with why.
      const history = (await t.app.inject({ method: 'GET', url: `/v1/memories/${correction.id}/history` })).json();
      expect(JSON.stringify(history)).toContain(note.id);
    },
  );

  it('a statement said later still supersedes, whatever order the writes arrive in', async () => {
    const user = 'time-later';
    const old = await store({ content: 'Tom lives in Berlin', memory_type: 'fact', user_id: user, occurred_at: at(1) });
    const next = await store({
      content: 'Tom moved to Madrid',
      memory_type: 'fact',
      user_id: user,
      occurred_at: at(9),
    });
    expect(next).toMatchObject({ status: 'superseded', superseded_ids: [old.id] });
    expect(next).not.toHaveProperty('superseded_by');
    expect(await memory(old.id)).toMatchObject({ status: 'superseded', superseded_by: next.id, valid_until: at(9) });
  });

  it('a restatement said earlier confirms the memory and keeps its later wording', async () => {
    const user = 'time-merge';
    const later = await store({
      content: 'The user likes green tea!',
      memory_type: 'preference',
      user_id: user,
      occurred_at: at(8),
    });
    const earlier = await store({
      content: 'The user likes green tea',
      memory_type: 'preference',
      user_id: user,
      occurred_at: at(2),
    });
    expect(earlier).toMatchObject({ status: 'merged', id: later.id });
    const merged = await memory(later.id);
    expect(merged).toMatchObject({ content: 'The user likes green tea!', proof_count: 2, status: 'active' });
    expect(last(merged.history)).toMatchObject({
      action: 'merged',
      content: 'The user likes green tea',
      reason: 'rule:same-topic',
    });
  });

  it('a batch of an earlier and a later statement keeps the later one, in either order', async () => {
    for (const [user, order] of [
      ['time-batch-a', [0, 1]],
      ['time-batch-b', [1, 0]],
    ] as const) {
      const writes = [
        { content: 'The user works at Google', memory_type: 'fact', user_id: user, occurred_at: at(1) },
        { content: 'The user now works at Apple', memory_type: 'fact', user_id: user, occurred_at: at(7) },
      ];
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { items: order.map((i) => writes[i]) },
      });
      expect(response.statusCode).toBe(201);
      expect(await active(user)).toEqual(['The user now works at Apple']);
    }
  });
});
