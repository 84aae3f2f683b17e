import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Issue 11.3 through /retrieve on the real app (SQLite file, Redis, the built-in embedder): a
 * question asking what someone does for a living, or what unpaid work, finds the fact that says it,
 * however the job is named ("air traffic controller", "ferry master", "writes code", 送外卖, "free
 * cover-ups"), above a relative's job and the person's other facts. The same facts and questions are asked of an app with the floor off
 * (`RANK_ASKED_KIND_MATCH=0`), where the built-in embedder does not know these jobs.
 */
const PEOPLE: ReadonlyArray<{ user: string; job: string; question: string; others: string[] }> = [
  {
    user: 'priya',
    job: "I'm an air traffic controller at Heathrow, mostly on night shifts.",
    question: 'What do I do for a living?',
    others: ['My sister is a nurse in Leeds.', 'I have a dog called Rex.', 'I grew up in Leicester.'],
  },
  {
    user: 'hamish',
    job: 'Hamish is a ferry master for CalMac, skippering the Oban to Craignure crossing.',
    question: 'What does he do for work?',
    others: ["Hamish's wife Morag is a head teacher.", 'Hamish speaks Gaelic.', 'Hamish hates lifts.'],
  },
  {
    user: 'rafael',
    job: 'Rafael writes code for a bank in Lisbon.',
    question: 'What is his profession?',
    others: ["Rafael's brother is a fisherman.", 'Rafael supports Benfica.', 'Rafael is allergic to shellfish.'],
  },
  {
    user: 'wang',
    job: '我在上海送外卖，一天跑十个小时左右。',
    question: '我现在靠什么谋生？',
    others: ['我老婆在老家当老师。', '我老家在河南周口。', '我每天早上喝一杯豆浆。'],
  },
  {
    user: 'rafa',
    job: 'one saturday a month i do free cover-ups for people with scars',
    question: 'Does he do any charity work?',
    others: ['i work at a tattoo studio in Lisbon', 'my cousin Leo lives in Porto', 'i skate on sundays'],
  },
];

async function placedFirst(t: TestApp): Promise<string[]> {
  const found: string[] = [];
  for (const person of PEOPLE) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: person.question, user_id: person.user, top_k: 3 },
    });
    expect(response.statusCode).toBe(200);
    if (response.json().results[0]?.content === person.job) found.push(person.user);
  }
  return found;
}

let withFloor: TestApp;
let withoutFloor: TestApp;

beforeAll(async () => {
  [withFloor, withoutFloor] = await Promise.all([startTestApp(), startTestApp({ RANK_ASKED_KIND_MATCH: '0' })]);
  for (const t of [withFloor, withoutFloor]) {
    for (const person of PEOPLE) {
      for (const content of [person.job, ...person.others]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/store',
          payload: { content, memory_type: 'fact', user_id: person.user },
        });
        expect(response.statusCode).toBeLessThan(300);
      }
    }
  }
});
afterAll(async () => {
  await Promise.all([withFloor?.close(), withoutFloor?.close()]);
});

describe('questions about what someone does for a living, or for nothing', () => {
  it("put the person's statement first, whatever the job or the cause is called", async () => {
    expect(await placedFirst(withFloor)).toEqual(PEOPLE.map((p) => p.user));
  });

  it('put fewer of them first without the floor (the embedder does not know these jobs)', async () => {
    expect((await placedFirst(withoutFloor)).length).toBeLessThan(PEOPLE.length);
  });

  it("answer a question about a relative's job with the relative's, not the person's own", async () => {
    const response = await withFloor.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: "What does Hamish's wife do for work?", user_id: 'hamish', top_k: 3 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().results[0]?.content).toBe("Hamish's wife Morag is a head teacher.");
  });
});
