import { describe, expect, it } from 'vitest';
import type { Rejection } from '../types.ts';
import { place, play, world } from './world.test-helper.ts';
import { COMMAND_PATTERN } from './world.ts';

describe('CuisineWorld validation: syntax, vocabulary and assignment refuse the whole step', () => {
  const cases: Array<[string, string[], Omit<Rejection, 'command'>]> = [
    [
      'a sentence instead of a command',
      ['go to the storage', 'goto_agent1_storage0'],
      {
        stage: 'syntax',
        reason: 'bad-syntax',
        message:
          '"go to the storage" is not a command; write verb_agentN[_item][_location], e.g. goto_agent0_storage0',
      },
    ],
    [
      'too many arguments for the verb',
      ['noop_agent0_storage0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'syntax',
        reason: 'bad-arity',
        message:
          '"noop_agent0_storage0" has 1 argument after the agent; noop is written noop_agentN',
      },
    ],
    [
      'a location missing',
      ['goto_agent0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'syntax',
        reason: 'bad-arity',
        message:
          '"goto_agent0" has 0 arguments after the agent; goto is written goto_agentN_location',
      },
    ],
    [
      'an unknown verb',
      ['jump_agent0_storage0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'vocabulary',
        reason: 'unknown-verb',
        message: 'jump is not an action; the actions are noop, goto, get, put and activate',
      },
    ],
    [
      'an agent that does not exist',
      ['goto_agent2_storage0', 'goto_agent1_storage0'],
      {
        agent: 'agent2',
        stage: 'vocabulary',
        reason: 'unknown-agent',
        message: 'there is no agent2; the agents are agent0 to agent1',
      },
    ],
    [
      'a location not in this kitchen',
      ['goto_agent0_oven0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'vocabulary',
        reason: 'unknown-location',
        message: 'for agent0, oven0 is not in this kitchen',
      },
    ],
    [
      'a second blender the kitchen lacks',
      ['goto_agent0_blender1', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'vocabulary',
        reason: 'unknown-location',
        message: 'for agent0, blender1 is not in this kitchen',
      },
    ],
    [
      'an unknown item',
      ['get_agent0_caviar_storage0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'vocabulary',
        reason: 'unknown-item',
        message: 'for agent0, caviar is not an item of this world',
      },
    ],
    [
      'a get at storage without an item',
      ['get_agent0_storage0', 'goto_agent1_storage0'],
      {
        agent: 'agent0',
        stage: 'vocabulary',
        reason: 'missing-item',
        message:
          'for agent0, say which ingredient to get from storage0: get_agent0_<ingredient>_storage0',
      },
    ],
    [
      'two commands for one agent',
      ['goto_agent0_storage0', 'goto_agent0_blender0'],
      {
        agent: 'agent0',
        stage: 'assignment',
        reason: 'duplicate-agent',
        message: 'agent ids cannot be the same: agent0 was given more than one command',
      },
    ],
  ];
  for (const [name, commands, expected] of cases) {
    it(`refuses ${name}; nothing runs but time passes`, () => {
      const w = world('level_0', 2, { lifetime: 10 });
      const validation = w.validate(commands);
      expect(validation).toEqual({
        ok: false,
        accepted: [],
        // The first offending command; for a duplicate, the agent's second command.
        rejections: [
          { command: commands[expected.reason === 'duplicate-agent' ? 1 : 0], ...expected },
        ],
      });
      const result = w.step(commands);
      expect(result.validation).toEqual(validation);
      expect(result.step).toBe(1);
      expect(result.feedback).toEqual([
        expected.message,
        'The whole step was refused, so no agent acted; give one well-formed command per agent.',
      ]);
      // The valid command beside it did not run either.
      expect(w.view().agents.map((a) => a.at)).toEqual(['servingtable0', 'servingtable0']);
      expect(w.view().orders[0]!.lifetime).toBe(9);
      expect(w.metrics()).toMatchObject({ idleSteps: 1, invalid: { [expected.reason]: 1 } });
    });
  }

  it('accepts get and put with an item named, tolerates spaces around a command', () => {
    const w = world('level_0');
    play(
      w,
      [' goto_agent0_storage0 ', 'noop_agent1'],
      ['get_agent0_salmon_storage0', 'noop_agent1'],
    );
    play(w, ['goto_agent0_blender0', 'noop_agent1'], ['put_agent0_salmon_blender0', 'noop_agent1']);
    expect(place(w, 'blender0').contents).toEqual(['salmon']);
  });

  it('lets an agent noop, and says so when every agent does', () => {
    const w = world('level_0');
    const result = w.step(['noop_agent0', 'noop_agent1']);
    expect(result.validation).toEqual({
      ok: true,
      accepted: ['noop_agent0', 'noop_agent1'],
      rejections: [],
    });
    expect(result.feedback).toEqual(['No agent did anything this step, which is unusual.']);
    expect(w.metrics()).toMatchObject({ steps: 1, idleSteps: 1, invalid: {} });
  });

  it('finds commands in chatter with its pattern', () => {
    const text =
      'Sure! ***\ngoto_agent0_storage0\nget_agent1_flour_storage0, then noop_agent2 and fly_agent3.\n***';
    expect(text.match(COMMAND_PATTERN)).toEqual([
      'goto_agent0_storage0',
      'get_agent1_flour_storage0',
      'noop_agent2',
      'fly_agent3',
    ]);
  });
});
