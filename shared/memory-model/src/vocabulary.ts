// The memory model's word lists without zod, so the browser console can import them cheaply.

/** The three memory layers of DESIGN §2. */
export const LAYERS = ['working', 'episodic', 'semantic'] as const;

/** Built-in categories; `category` also accepts other lower_snake names (the set is extensible). */
export const CATEGORIES = [
  'preference',
  'fact',
  'decision',
  'commitment',
  'error',
  'todo',
  'lesson',
  'conclusion',
  'event',
  'summary',
  'profile',
  'turn',
  'note',
] as const;

export const STATUSES = ['active', 'superseded', 'archived', 'quarantined'] as const;
