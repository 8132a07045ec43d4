import { describe, expect, it } from 'vitest';
import { readAction } from './episode.ts';

describe('the action a simulator node sends', () => {
  const offered = ['move_forward', 'turn_left', 'turn_right', 'stop'];

  it('reads an option letter as that item of the actions last offered', () => {
    expect(readAction('(b)', offered)).toEqual({ action: 'turn_left', simulated: false });
    expect(readAction(' D ', offered)).toEqual({ action: 'stop', simulated: false });
    // A letter past the list is sent as written, for the simulator to judge.
    expect(readAction('(f)', offered)).toEqual({ action: '(f)', simulated: false });
  });

  it('sends a letter the simulator itself offers as it is', () => {
    expect(readAction('a', ['w', 'a', 's', 'd'])).toEqual({ action: 'a', simulated: false });
  });

  it('takes the simulated label off, and notes it', () => {
    expect(readAction('[simulated] (a)', offered)).toEqual({
      action: 'move_forward',
      simulated: true,
    });
    expect(readAction('[simulated] jump', offered)).toEqual({ action: 'jump', simulated: true });
  });

  it('has nothing to send for an empty or missing action', () => {
    expect(readAction('', offered)).toBeUndefined();
    expect(readAction('  ', offered)).toBeUndefined();
    expect(readAction(undefined, offered)).toBeUndefined();
    expect(readAction('[simulated] ', offered)).toBeUndefined();
  });
});
