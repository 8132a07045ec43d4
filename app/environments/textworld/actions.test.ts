import { describe, expect, it } from 'vitest';
import { formatAction, readAction } from './actions.ts';
import { buildLayout } from './layout.ts';
import { smallWorld } from './world.test-helper.ts';

const layout = buildLayout(smallWorld());
const read = (text: string) => {
  const r = readAction(text, layout);
  return r.ok ? formatAction(r.action, layout) : `! ${r.message}`;
};

describe('reading actions out of model text', () => {
  it.each([
    ['go to yard', 'go to yard'],
    ['Go To The Yard.', 'go to yard'],
    ['walk to the kitchen', 'go to kitchen'],
    ['Action: leave kitchen', 'leave kitchen'],
    ['**Action:** `take toy 1 from table 1`', 'take toy 1 from table 1'],
    ['- "Take cup 1 from Table 1!"', 'take cup 1 from table 1'],
    ['take toy 1', 'take toy 1'],
    ['put coin 1 in table 1', 'put coin 1 on table 1'],
    ['place the coin 1 into shelf 1', 'put coin 1 in shelf 1'],
    ['use the sink basin 1', 'use sink basin 1'],
    ['chat with B: Hello, how are you?', 'chat with B: Hello, how are you?'],
    ['chat with Ada "Shall we eat?"', 'chat with A: Shall we eat?'],
    ['talk to b', 'chat with B'],
    ['leave Ada', 'leave A'],
    ['Rest.', 'rest'],
    ['Thought: I feel tired.\nAction: rest', 'rest'],
    ['I think I will look around.\ngo to yard\nchat with B: hi', 'go to yard'],
    ['Thought: go to yard first\nAction: use sink basin 1', 'use sink basin 1'],
  ])('%j reads as %j', (text, canonical) => {
    expect(read(text)).toBe(canonical);
  });

  it.each([
    ['fly away', '! "fly away" is not an action; write one of: go to AREA'],
    ['', '! no action given'],
    ['take toy 9 from table 1', '! there is no item "toy 9"'],
    ['take toy 1 from table 9', '! there is no furniture "table 9"'],
    ['put coin 1 somewhere', '! say where to put it: put ITEM on FURNITURE'],
    ['go to table 1', '! "table 1" is furniture, not an area'],
    ['chat with Zed: hi', '! there is no person "Zed"'],
  ])('%j is refused: %s', (text, message) => {
    expect(read(text).startsWith(message), read(text)).toBe(true);
  });

  it('keeps a chat to one line within its bound', () => {
    const said = read(`chat with B: ${'la '.repeat(600)}\nmore`);
    expect(said.length).toBeLessThan(1020);
    expect(said).not.toContain('\n');
  });
});
