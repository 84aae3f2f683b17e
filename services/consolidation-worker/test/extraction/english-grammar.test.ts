import { describe, expect, it } from 'vitest';
import { toThirdPerson } from '../../src/extraction/offline/english-grammar.ts';

describe('first person to third person', () => {
  it.each([
    ['I go bouldering and rock climbing', 'the user goes bouldering and rock climbing'],
    ['I rock climb on Sundays', 'the user rock climbs on Sundays'],
    ['I really rock climb', 'the user really rock climbs'],
    ['I ice skate in winter', 'the user ice skates in winter'],
    ['I usually hike or rock climb on Saturdays', 'the user usually hikes or rock climbs on Saturdays'],
    ['I run and swim', 'the user runs and swims'],
    ['I like tea or milk', 'the user likes tea or milk'],
    ['I live in Leeds and work as a nurse', 'the user lives in Leeds and works as a nurse'],
  ])('%j → %j', (clause, expected) => {
    expect(toThirdPerson(clause)).toBe(expected);
  });
});
