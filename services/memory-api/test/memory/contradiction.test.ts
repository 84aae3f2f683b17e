import { describe, expect, it } from 'vitest';
import { RuleContradictionJudge } from '../../src/memory/contradiction.ts';
import { hasContentWords } from '../../src/memory/statements.ts';

const judge = new RuleContradictionJudge();
const relation = async (older: string, newer: string) =>
  (await judge.relate({ content: older }, { content: newer })).kind;

describe('rule-based contradiction judge', () => {
  it.each([
    ['The user likes coffee', 'The user has quit coffee'],
    ['The user likes coffee', "The user doesn't drink coffee anymore"],
    ['Tom lives in Berlin', 'Tom moved from Berlin to Madrid'],
    ['The user lives in Berlin', 'The user moved to Lisbon'],
    ['Maria is vegetarian', 'Maria is no longer vegetarian'],
    ['Maria is vegetarian', 'Maria eats meat again'],
    ['The user is a vegan', 'The user started eating fish again'],
    ['我吃素', '我又开始吃鱼了'],
    ['timezone is UTC+8', 'timezone is UTC+1'],
    ['My favourite band is Radiohead', 'My favorite band is now Arcade Fire'],
    ['The meeting is on Tuesday', 'The meeting is on Thursday'],
    ['Priya works at Google', 'Priya now works at Microsoft'],
    ['Olga works for Siemens', 'Olga left Siemens and joined Bosch'],
    ['Leo is a teacher', 'Leo quit teaching and is now a lawyer'],
    ['Kenji drives a Toyota', 'Kenji sold his Toyota and now drives a Tesla'],
    ['Sam is single', 'Sam got married last June'],
    ['I drink tea in the morning', 'I switched from tea to coffee in the morning'],
    ['Alex is 34 years old', 'Alex is 35 years old'],
    ['I prefer window seats', 'I now prefer aisle seats'],
    ['I like tea', 'I used to like tea'],
    ['我喜欢喝咖啡', '我已经戒咖啡了'],
    ['我吃素', '我不再吃素了'],
    ['我住在北京', '我从北京搬到上海了'],
    ['李娜在腾讯工作', '李娜现在在阿里巴巴工作'],
    ['我在腾讯工作', '我换工作了，现在在字节跳动'],
    ['我的时区是UTC+8', '我的时区是UTC+2'],
    ['我每天抽烟', '我戒烟了'],
    ['我已婚', '我离婚了'],
    ['我是老师', '我现在是程序员'],
    ['Alex has two cats', 'Alex now has three cats'],
    ['我养了两只猫', '我现在养了三只猫'],
    ['Alex drives a Honda', 'Alex now drives a Tesla'],
    // Another of a few known alternatives: platform, phone, drinking, smoking.
    ['Alex uses Windows', 'Alex switched to a Mac'],
    ['The user uses Linux', 'The user switched to Windows'],
    ['Hugo uses a Windows laptop', 'Hugo moved over to a MacBook'],
    ['我用安卓手机', '我换成苹果手机了'],
    ['Alex drinks alcohol', 'Alex is sober now'],
    ['Nadia drinks alcohol', 'Nadia is teetotal now'],
    ['Hugo smokes cigars', 'Hugo is a non-smoker now'],
    // A job as the owner is it, a bare age, ages and cars in Chinese, a Latin value of a Chinese key.
    ['The user is a nurse', 'The user is now a midwife'],
    ['I am a student', "I graduated and I'm now an accountant"],
    ['I am 41', 'I am 42 now'],
    ['我今年三十岁', '我今年三十一岁'],
    ['我今年二十八岁', '我今年29岁了'],
    ['我开丰田', '我现在开特斯拉'],
    ['我开宝马', '我换了一辆比亚迪'],
    ['我的邮箱是lin@a.com', '我的邮箱是lin@b.com'],
    ['我最喜欢的颜色是蓝色', '我最喜欢的颜色现在是绿色'],
    // A partner statement and the owner's break-up with them.
    ['我男朋友叫小李', '我和小李分手了'],
    ["Omar's girlfriend is Lena", 'Omar broke up with Lena'],
    ["Greta's husband is called Piet", 'Greta divorced Piet'],
    // Blind-11's misses by class: a thing said gone, a key said changed, a named pet rehomed, a
    // relative named by the name the older gave them, a degree switched, a denial after its object.
    ['My phone is an iPhone 12.', 'I switched to a Pixel 8 last week, the iPhone is gone.'],
    ['My mobile number is 07700 900123.', "My mobile changed, it's 07700 900456 now."],
    ['We have a German shepherd called Bruno.', 'We had to rehome Bruno with a farming family.'],
    ["My daughter Leah goes to St Anne's Primary.", "Leah has changed schools; she's at Oakfield Primary now."],
    ['My brother Sam works as a firefighter in Glasgow.', 'Sam has retrained and is a paramedic now.'],
    ["I'm studying history at Exeter.", 'I switched my degree to economics at the start of second year.'],
    ['我每天早上喝一杯咖啡。', '我现在改喝茶了，咖啡戒了。'],
    ['老陈每天晚上都要喝二两白酒。', '老陈体检以后就不喝酒了。'],
    ['我的手机号是 138 0013 8000。', '我换号了，新号码是 139 1234 5678。'],
    ['我家有一只英短猫。', '那只英短送给我表妹养了，我们家不养猫了。'],
    ['我在读土木工程专业。', '我转到计算机专业了。'],
    ['我姐在超市当收银员。', '我姐不在超市干了，去开网约车了。'],
    ['我早饭习惯喝牛奶', '我乳糖不耐受，早饭改喝豆浆了'],
    ['I play tennis every Saturday', "I don't play tennis on Saturdays anymore"],
    // Blind-12's misses by class: a school kind in lower case, a retirement, a stop said of part of
    // what the older says, a key said changed and then its new value.
    ["My son goes to St Mary's primary", 'My son switched to Oakfield Academy this term'],
    ['My dad works at the steelworks', "Dad retired from the steelworks in March, he doesn't work anymore"],
    ['I play in a Sunday league football team', "I don't play Sunday league anymore, my knee's shot"],
    ['我的微信号是lihua_88', '微信号改了，新的是lihua2026'],
    ['我爸在工地上班', '我爸去年退休了，现在不上班了'],
    // A new job named by its title, a key changed said casually, a partner named in the break-up, a
    // child moved to another school, a number without 的, a thing sold named first, 无肉不欢, a
    // sentence beginning with a relative, someone brought to live elsewhere.
    [
      'I work as a receptionist at a dental practice in Leeds',
      "just started a new job, I'm a sales rep for a paint company now",
    ],
    [
      'My work email is dan.p@harrowfoods.co.uk',
      'work email changed to daniel.price@harrow-group.com after the rebrand',
    ],
    ['My boyfriend is called Liam', 'Liam and I split up in October'],
    ['My son goes to Oakfield Primary', "we moved my son to St Anne's after half term"],
    ['我手机号是13812345678', '我手机号换了，新号是13998765432'],
    ['我开的是一辆本田雅阁', '雅阁已经卖掉了，现在坐地铁上班'],
    ['我无肉不欢，顿顿都要吃肉', '我现在吃素了，肉一口都不碰'],
    ['我女儿在实验小学读二年级', '女儿转学了，现在在外国语学校'],
    ['我奶奶一个人住在农村老家', '奶奶被我们接到城里来住了'],
    ['我儿子在读大学', '儿子大学退学了，现在在工厂上班'],
    ['I live in Leeds', 'I left Leeds, we live in York now'],
    ['She drives a Honda', 'She sold the Honda; she drives a Kia now'],
    ['我今年三十岁', '我今年三十一岁了'],
    ['我养了一只小狗', '我现在养了两只狗'],
    // blind-15
    ['Maeve is engaged to Connor', 'Maeve and Connor called off the engagement and split up'],
    ['Graham is a signalman for Network Rail', "Graham retired from Network Rail in March and doesn't work now"],
    ['My landlord is Mr Hussain', 'The flat was sold, so my landlord is now a letting agency called Homestead'],
    ["I don't have a car, I cycle everywhere", 'I bought a Honda Civic last month and drive it to work'],
    ['我没有车，上班都坐地铁', '我上个月买了一辆特斯拉，现在开车上班'],
    ['我特别爱吃红烧肉，每顿都要有肉', '我已经吃素半年了，不再吃肉'],
    ['小婷现在单身', '小婷跟她的同事在一起了'],
    ['我跟男朋友阿杰住在一起', '我跟阿杰分手了，已经搬出来自己住'],
    ['我家养了一只哈士奇', '那只哈士奇太闹了，我们送给了乡下的亲戚，现在家里没养狗'],
    ['我每天吃二甲双胍', '医生说血糖控制得好，二甲双胍已经停了'],
    // blind-16
    [
      "I'm assistant manager at the Lidl on Gorgie Road",
      "Got made store manager at the Gorgie Road Lidl last week, so I'm not the assistant any more",
    ],
    [
      'My personal email is dana.kovac@outlook.com',
      'Use dana.k@proton.me for me from now on, I no longer check the Outlook address',
    ],
    ['I drive a 2011 Ford Focus', 'Ended up trading the Focus in for a secondhand Honda Jazz'],
    ['We have a rabbit called Biscuit', "Biscuit went to live with a family in Harrogate, we don't have any pets now"],
    ['I take 5 mg of amlodipine for my blood pressure', 'My GP upped the amlodipine to 10 mg'],
    [
      'My dentist is Dr Patel at Smile Dental on the high street',
      "Turns out Dr Patel retired, so I'm with Dr Moreau at Riverside Dental now",
    ],
    [
      "I'm a warehouse supervisor at the Amazon depot in Dartford",
      "I was made redundant in May and I'm out of work at the moment",
    ],
    ['我的微信号是 xiaoyu_1990', '微信号改成 yu_lake2024 了，原来那个不用了'],
    ['我养了一只橘猫叫胖虎', '胖虎上个月因为肾衰竭走了，家里现在没有猫了'],
    ['我在新东方上雅思课', '雅思不考了，改成报日语N2的班'],
    ['我每天吃一片优甲乐，50微克', '优甲乐加到75微克了'],
    ['我每周六跟小区羽毛球队打球', '羽毛球队我没再去了，现在改打匹克球'],
    ['我现在没上班，在家带孩子', '孩子上幼儿园了，我重新上班了，在超市做收银'],
    ['我们打算五一去西藏自驾', '五一西藏自驾黄了，老板不批假'],
    // blind-17
    [
      'I work as a mortgage adviser at Nationwide in Swindon',
      "handed in my notice at the building society last week, I start with the council's housing team in March",
    ],
    [
      'I rent a one-bed flat in Leith',
      'we finally got the keys to the new place in Dunfermline, so no more Edinburgh rent!',
    ],
    ['My pottery class is on Thursday evenings', "actually it's Tuesdays not Thursdays for pottery, I got mixed up"],
    [
      'I smoke about ten a day, mostly roll-ups',
      'six months without a single cigarette now, the patches actually worked',
    ],
    [
      'My girlfriend Hannah and I have been together two years',
      "Hannah and I called it a day over the summer. I've been seeing someone called Priya since October",
    ],
    ['We have a blue budgie called Kiwi', 'we lost Kiwi on Sunday morning, the kids buried him under the apple tree'],
    ['I take sertraline 50 mg every morning', "GP has doubled my sertraline, so it's 100 mg a day from now on"],
    [
      'I drive a red Mazda MX-5',
      "the MX-5 went to a bloke off Gumtree on Saturday, I'm getting the bus until I find something cheaper",
    ],
    [
      "We're going to Crete for our anniversary in June",
      "Crete's not happening anymore, Dan's boss won't sign off the leave",
    ],
    [
      'My mobile number is 07700 900412',
      "got my phone nicked on the tube so I'm on 07700 900877 now, the old SIM is blocked",
    ],
    [
      'I support Leeds United',
      "honestly I've switched allegiance to Bradford City since moving back home, Elland Road is too far",
    ],
    [
      "I'm training for the Manchester Marathon in April",
      "stress fracture in my foot, so I've withdrawn from Manchester, maybe next year",
    ],
    [
      'My dentist is Dr Okonkwo at Smile Dental in Leeds',
      "Smile Dental went private so I've registered with a practice in Harrogate instead",
    ],
    ["I'm single and not really looking", 'Marcus proposed on Saturday and I said yes!!'],
    ['我家狗狗叫旺财，是只柯基', '房东不让养狗，旺财送去我表姐家了'],
    ['我手机号是138 0013 4567', '以后打我新号139 0021 7788，原来那个已经停机了'],
    ['我和女朋友小雅准备年底结婚', '跟小雅分手了，婚礼酒店也退了'],
    ['我吃素，一点肉都不碰', '查出贫血以后，医生让我吃点鸡肉牛肉，我现在也开荤了'],
    ['我每天要喝两杯咖啡', '我已经把咖啡戒了，现在改喝大麦茶'],
    ['今年国庆我们全家要去云南大理', '国庆的计划泡汤了，我爸突然住院，哪儿也去不成'],
    ['我的瑜伽课在周四晚上', '其实是周二，不是周四，我记错了'],
  ])('"%s" is contradicted by "%s"', async (older, newer) => {
    expect(await relation(older, newer)).toBe('contradicts');
  });

  it.each([
    // The failures: the same sentence shape about different attributes.
    ['Maria is vegetarian', 'Maria is learning to play the cello'],
    ['Maria is vegetarian', 'Maria dislikes spicy food'],
    ['Maria is lactose intolerant', 'Maria is afraid of heights'],
    ['Maria is lactose intolerant', 'Maria is colour-blind'],
    ['Kenji is married to Aiko', 'Kenji is a software engineer at Sony'],
    ["Priya's favourite colour is teal", "Priya's favourite food is ramen"],
    ["Priya's daughter is allergic to peanuts", 'Priya is not allergic to anything'],
    ['I like jazz', "I don't like country music"],
    ["I don't like being called by my last name", 'I prefer email over phone calls'],
    ['Tom lives in Berlin', "Tom doesn't live in Madrid"],
    ['The user goes to the gym', 'The user wants to quit the gym'],
    ['我吃素', '我不吃辣'],
    ['我对乳糖不耐受', '我对青霉素过敏'],
    ['李娜喜欢绿茶', '李娜不喜欢早起'],
    ['用户喜欢简洁的回答', '用户住在上海'],
    ['Alex drives a red Honda', 'Alex drives to work every day'],
    ['Alex has two kids', 'Alex has two cats'],
    ['Alex is learning Spanish', "Alex doesn't speak Spanish"],
    // A pastime is not a job; a relative's job is not the owner's; "switched to" about different things.
    ['Greta is a keen gardener', 'Greta is a pharmacist'],
    ["Omar's wife Ines is an optician.", "Omar's wife Ines loves gardening."],
    ["The user's wife is an optician", "The user's wife loves gardening"],
    ["I'm a structural engineer designing bridges.", "I'm training for my pilot's licence."],
    ['Priyanka works at Airbus', "Priyanka's best friend works at a bakery"],
    ['Nadia switched to decaf coffee', 'Nadia switched to the night shift'],
    ['I never drink soda', "I don't drink alcohol"],
    ['Ben drinks wine with dinner', 'Ben drinks coffee every morning'],
    ['Alex uses Windows at work', 'Alex has an iPhone'],
    ['我妈妈住在西安', '我住在成都'],
    ['我女儿今年六岁', '我今年三十五岁'],
    // A move at an age is a life story, not where one lives now.
    [
      'Olivia lives in a terraced house with a small garden.',
      'Olivia was born in Cape Town and moved to England at twelve.',
    ],
    ['I live in Leeds', 'I moved to York when I was ten'],
    ['我住在北京', '我十二岁时搬到了上海'],
    // Fish only says a diet when one goes back to it.
    ['The user is vegan', 'The user eats fish on Fridays'],
    // Someone else's move in a relative clause; 当 of 当年; a named relative's sibling; another meal's habit.
    [
      'Aroha lives in a weatherboard bungalow in Ngongotahā.',
      'In March she is flying to Brisbane to visit Huia, who moved to Australia ten years ago.',
    ],
    ['她住在柳江边上的一套老房子里，是当年单位分的。', '她只读到初中，十六岁就进了糖厂当工人。'],
    ['My sister Kate works as a nurse in Glasgow.', 'Sam has retrained and is a paramedic now.'],
    ["I'm studying Spanish at the Cervantes Institute.", "I'm studying piano at the Royal Conservatoire."],
    // A habit denied for one occasion only is not given up.
    ['I go to the gym three times a week', "I don't go to the gym on Fridays anymore"],
    ['I play tennis and golf', "I don't play golf on weekdays anymore"],
    ['我每天早上跑步', '我周末不跑步了'],
    ['我在银行上班', '我周六不上班了'],
    ['I play chess online most evenings', "I don't play Sunday league anymore, my knee's shot"],
    ['我妈在超市上班', '我爸去年退休了，现在不上班了'],
    ["Lucia's mum is a retired primary school teacher.", "Lucia's mum lives in Porto."],
    ['我早上喝咖啡', '我晚上改喝茶了'],
    ['我早饭喝牛奶', '我午饭也改吃面了'],
    ['我哥在超市当保安。', '我姐不在超市干了，去开网约车了。'],
    ['My personal email is danp88@gmail.com', 'work email changed to daniel.price@harrow-group.com after the rebrand'],
    ['My daughter goes to Oakfield Primary', "we moved my son to St Anne's after half term"],
    ['My son goes to Oakfield Primary', "we moved my son's bed into the spare room"],
    ['我开的是一辆本田雅阁', '旧沙发已经卖掉了'],
    ['我手机号是13812345678', '我微信号是abc123'],
    ['我儿子在读初一', '女儿转学了，现在在外国语学校'],
    ['My boyfriend is called Liam', 'Tom and I split the bill'],
    ['我家住在农村', '我们把奶奶接到深圳来住了'],
    ['My work email is a@b.com', 'my schedule changed to nights'],
    // Another person's clause, an animal's age, a volunteer's role (blind-14's false supersedes).
    [
      "She split from Sipho's dad, Thabo, three years ago; he drives a minibus taxi in Durban now and pays maintenance, mostly on time.",
      'She drives a white 2018 Toyota Corolla Quest she bought second-hand from her cousin.',
    ],
    ['She lives in Leeds with two cats', 'She split from Dave; he lives in York now'],
    ['高淑珍1960年腊月出生在黑龙江双城，今年66岁。', '她养了一只叫“煤球”的黑猫，已经十二岁了。'],
    ['我今年三十岁', '我养了一条狗，今年三岁了'],
    ['高淑珍退休前在哈尔滨火车站当了三十年售票员。', '她在社区当志愿者，疫情那几年负责给独居老人送菜。'],
    ['我是护士', '我周末在医院当志愿者'],
    // A supervisor or an assistant is someone one has, not one's job.
    [
      'The user is a PhD student in marine biology',
      "Professor Lindqvist (the user's supervisor) wants chapter 3 by December 15.",
    ],
    // blind-15: an ex's job is not the owner's; 特别 ("especially") denies nothing.
    ['我在迪拜给阿联酋航空当空姐，主要飞长途线。', '前男友是我大学同学，现在在重庆当公务员，早就没联系了。'],
    ["I'm a nurse", 'My ex-husband works as an accountant now'],
    ['My boss is Mr Okafor', 'The flat was sold, so my landlord is now a letting agency called Homestead'],
    ['她特别喜欢吃辣', '她不喜欢坐飞机'],
    ['我跟男朋友阿杰住在一起', '我闺蜜小美和她男朋友分手了'],
    // blind-16: a job of each season, a goal, a note about the owner beside one about someone named,
    // a retirement that is the dentist's, the other kind of address, a relative who is no provider.
    [
      '家人们，我夏天在新疆禾木一家民宿当管家，五月干到十月，包吃包住，纯纯打工人',
      '冬天就去崇礼万龙当单板教练，有CASI二级证，带小孩的课最多',
    ],
    ['家人们，我夏天在新疆禾木一家民宿当管家，五月干到十月，包吃包住', '目标是三十岁前回天水开个自己的民宿，当老板娘'],
    ['I work at a ski school in winter', 'In summer I work at a campsite on the coast'],
    ['Drives a grey 2018 Toyota Hilux.', 'Saoirse drives an electric Nissan Leaf.'],
    ["I'm a nurse", "Turns out Dr Patel retired, so I'm with Dr Moreau at Riverside Dental now"],
    ['My work email is dana@kovac-design.com', 'Use dana.k@proton.me for personal mail from now on'],
    ['My dad is Tom Kovac', 'Tom retired last year'],
    ['我不喝咖啡', '咖啡我不喝了'],
    // blind-17: a move at marriage, a hospital stay, an age difference, a workplace within an employer,
    // a preference said as 是X不是Y, "but not", "turned out not to be".
    [
      'They live in a four-bedroom house in Montrose, near the golf course, with solar panels.',
      'She grew up in Mthatha in the Eastern Cape and moved to KwaZulu-Natal when she married.',
    ],
    ['住在坂田，跟同事合租一个两房，我那间一个月三千二，押一付三。', '前年割了阑尾，在港大深圳医院，住了四天院。'],
    [
      '他老伴儿刘桂芬比他小两岁，退休前是亚麻厂的质检员。',
      '外孙豆豆六岁，是周琳的孩子，上幼儿园大班，每天下午都是周德胜去接。',
    ],
    ['I work for the NHS', "I'm a physio at the Royal Free, mostly on the stroke rehab ward"],
    ['蒋德容在重庆解放碑附近开了一家老火锅店，已经开了十八年。', '她最爱吃的是凉粉，不是火锅。'],
    [
      'He washes dishes at a sushi place on Storgata three evenings a week to cover his rent.',
      "He's on a scholarship from the Brazilian government's CAPES programme that covers tuition but not rent.",
    ],
    ['Hamid is allergic to wasps', 'Hamid turned out not to be allergic to cats after all — the test was negative'],
  ])('"%s" and "%s" are about different things', async (older, newer) => {
    expect(await relation(older, newer)).toBe('unrelated');
  });

  it.each([
    ['The user likes coffee', 'The user likes coffee with oat milk'],
    ['Maria is allergic to peanuts', 'Maria is allergic to peanuts and shellfish'],
    ['Tom lives in Berlin', 'Tom lives in Berlin-Kreuzberg, near the canal'],
    ['Maria is vegetarian', 'Maria is a vegetarian'],
    ['我喜欢喝乌龙茶', '我喜欢喝乌龙茶，不加糖'],
    ['我住在上海', '我住在上海浦东'],
    ['Ben drinks wine with dinner', 'Ben drinks wine with dinner at weekends'],
    ['I drive a Toyota', 'I drive a red Toyota Corolla'],
    ['我儿子在读大学', '儿子在武汉大学读计算机，大三了'],
    // blind-15: a rank within the job, a retirement said again.
    ['Lorna is a firefighter', 'Lorna is a watch manager at Speke fire station and works four on, four off'],
    ['Graham is a retired teacher', 'Graham retired in 2019 after thirty years at Hill Road school'],
  ])('"%s" is refined by "%s"', async (older, newer) => {
    expect(await relation(older, newer)).toBe('refines');
  });

  it('reads the attribute from the extractor key and question when they are given', async () => {
    const where = 'Where does the user live?';
    const diet = 'What health or diet constraints does the user have?';
    expect(
      await judge.relate(
        { content: 'Lives in Berlin', query: where, key: 'identity.location' },
        { content: 'Lives in Madrid now', query: where, key: 'identity.location' },
      ),
    ).toEqual({ kind: 'contradicts', reason: 'rule:same-key' });
    expect(
      (
        await judge.relate(
          { content: 'The user is vegetarian', query: diet, key: 'health.vegetarian' },
          { content: 'The user is lactose intolerant', query: diet, key: 'health.lactose_intolerant' },
        )
      ).kind,
    ).toBe('unrelated');
    // The same slot with another answer; a slot id that carries polarity still meets its denial.
    expect(
      await judge.relate(
        { content: 'The user lives in Berlin.', key: 'user.home', answer: 'Berlin' },
        { content: 'The user moved to Madrid.', key: 'user.home', answer: 'Madrid' },
      ),
    ).toEqual({ kind: 'contradicts', reason: 'rule:same-key' });
    expect(
      (
        await judge.relate(
          { content: 'The user likes jazz.', key: 'user.likes.jazz', answer: 'jazz' },
          {
            content: 'The user does not like jazz anymore.',
            key: 'user.dislikes.jazz_anymore',
            answer: 'jazz anymore',
          },
        )
      ).kind,
    ).toBe('contradicts');
    expect(
      (
        await judge.relate(
          { content: 'The user is vegetarian.', key: 'user.diet', answer: 'vegetarian' },
          { content: 'The user is not vegetarian anymore.', key: 'user.diet', answer: 'vegetarian' },
        )
      ).kind,
    ).toBe('contradicts');
    // A reversal names the answer it takes back.
    expect(
      await judge.relate(
        { content: 'The user will fly to Rome.', key: 'user.will_fly_rome', answer: 'fly to Rome' },
        { content: 'The user decided to go to Paris.', key: 'decision.go_paris', answer: 'Paris', replaces: 'Rome' },
      ),
    ).toEqual({ kind: 'contradicts', reason: 'rule:replaces-answer' });
  });

  it('names the rule that decided', async () => {
    expect(
      await judge.relate({ content: 'I love Kenyan coffee' }, { content: 'I no longer like Kenyan coffee' }),
    ).toEqual({
      kind: 'contradicts',
      reason: 'rule:negation',
    });
    expect(await judge.relate({ content: 'I love Kenyan coffee' }, { content: 'I quit Kenyan coffee' })).toEqual({
      kind: 'contradicts',
      reason: 'rule:changed-from',
    });
    expect(await judge.relate({ content: 'Tom lives in Berlin' }, { content: 'Tom lives in Madrid' })).toEqual({
      kind: 'contradicts',
      reason: 'rule:same-attribute:residence',
    });
  });

  it.each(['ok', 'hello', '?', '👍', '"', "'", 'thanks!', '好的', '嗯', '哈哈', '...'])(
    'relates "%s" (no content words) to nothing',
    async (junk) => {
      expect(hasContentWords(junk)).toBe(false);
      expect(await relation('The user likes green tea', junk)).toBe('unrelated');
      expect(await relation(junk, 'The user likes green tea')).toBe('unrelated');
    },
  );
});
