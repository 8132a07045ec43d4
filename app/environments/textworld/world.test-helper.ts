/** A small world the text-world tests share: a yard joining a kitchen and a den, three people. */
import type { WorldSpec } from './format.ts';

/** A fresh copy of the small world (tests may change it freely). */
export function smallWorld(): WorldSpec {
  return {
    format: 'society-world/1',
    name: 'Small world',
    areas: [
      { id: 'yard', title: 'the yard', kind: 'outdoor', doors: ['kitchen', 'den'], furniture: [] },
      {
        id: 'kitchen',
        title: 'the kitchen',
        kind: 'public',
        doors: ['yard'],
        furniture: [
          { id: 'table 1', kind: 'table' },
          {
            id: 'sink basin 1',
            kind: 'sink basin',
            use: { sets: ['clean', 'damp'], clears: ['dirty', 'hot'] },
          },
          {
            id: 'stove burner 1',
            kind: 'stove burner',
            use: { sets: ['hot'], clears: ['damp'], doing: 'cooking at stove burner 1' },
          },
        ],
      },
      {
        id: 'den',
        kind: 'home',
        owner: 'A',
        doors: [],
        furniture: [{ id: 'shelf 1', kind: 'bookshelf', holds: 'in' }],
      },
    ],
    items: [
      { id: 'cup 1', at: 'table 1', states: ['dirty'] },
      { id: 'toy 1', at: 'table 1' },
      { id: 'book 1', at: 'shelf 1' },
      { id: 'coin 1', at: 'A' },
    ],
    agents: [
      { id: 'A', name: 'Ada', at: 'kitchen', goal: 'Keep the kitchen tidy.' },
      { id: 'B', at: 'kitchen', goal: 'Find something to play with.' },
      { id: 'C', at: 'yard', goal: 'Meet everyone.' },
    ],
  };
}
