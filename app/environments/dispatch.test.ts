import { describe, expect, it } from 'vitest';
import {
  agentOf,
  dispatchMessages,
  extractCommands,
  feedbackLines,
  withoutSeats,
} from './dispatch.ts';

const PATTERN = /\b(?:noop|goto|put|activate|get)_agent\d+(?:_[A-Za-z0-9]+)*/;

describe('reading commands out of a model answer', () => {
  it('keeps the commands, in order, and drops the chatter around them', () => {
    const text = `Sorry about the last step! Here is my plan:
***
goto_agent0_storage0
get_agent1_flour_storage0, then activate_agent2_blender0.
***
I hope this works (last time noop_agent3 wasted a step).`;
    // The block between *** lines is the answer; what is said after it is commentary.
    expect(extractCommands(text, PATTERN)).toEqual([
      'goto_agent0_storage0',
      'get_agent1_flour_storage0',
      'activate_agent2_blender0',
    ]);
    expect(extractCommands('goto_agent0_storage0, and agent3 rests: noop_agent3', PATTERN)).toEqual(
      ['goto_agent0_storage0', 'noop_agent3'],
    );
    expect(extractCommands('I will make soup now.', PATTERN)).toEqual([]);
    // Commands named in the reasoning are not taken when the answer sets its commands apart.
    expect(
      extractCommands(
        'Last time put_agent0_blender0 failed, so now:\n```\nget_agent0_salmon_storage0\nget_agent1_flour_storage0\n```',
        PATTERN,
      ),
    ).toEqual(['get_agent0_salmon_storage0', 'get_agent1_flour_storage0']);
    expect(extractCommands('Do _goto_agent0_storage0_ now.', PATTERN)).toEqual([
      'goto_agent0_storage0',
    ]);
    expect(agentOf('get_agent12_flour_storage0')).toBe('agent12');
  });

  it("refuses the model's commands for a seat a person has taken", () => {
    const { kept, refused } = withoutSeats(['goto_agent0_storage0', 'noop_agent1'], ['agent1']);
    expect(kept).toEqual(['goto_agent0_storage0']);
    expect(refused).toEqual([
      {
        command: 'noop_agent1',
        agent: 'agent1',
        stage: 'assignment',
        reason: 'seat-taken',
        message: 'agent1 is played by a person; do not give it commands',
      },
    ]);
    expect(feedbackLines([...refused, ...refused])).toEqual([
      'noop_agent1: agent1 is played by a person; do not give it commands',
    ]);
  });
});

describe('the dispatcher prompt', () => {
  const base = {
    briefing: { rules: 'RULES', knowledge: 'RECIPES', hints: ['HINT ONE'] },
    demos: [[{ state: 'DEMO STATE', commands: ['noop_agent0', 'noop_agent1'] }]],
    agents: ['agent0', 'agent1', 'agent2'],
    seats: ['agent2'],
    settings: {
      behaviour: 'feedback' as const,
      retries: 0,
      feedback: true,
      hints: true,
      history: 1,
    },
    history: [
      { user: 'OLD STATE 1', assistant: 'OLD ANSWER 1' },
      { user: 'OLD STATE 2', assistant: 'OLD ANSWER 2' },
    ],
    state: 'NOW STATE',
    feedback: ['goto_agent0_oven0: there is no oven0 in this kitchen'],
    suggestions: ['put the waste into the storage'],
  };

  it('has rules, recipes, hints, the demo, the seats, the history window, feedback and state', () => {
    const messages = dispatchMessages(base).map((m) => `${m.role}: ${m.content}`);
    expect(messages[0]).toBe('user: RULES\n\nRecipes:\nRECIPES\n\nHints:\n- HINT ONE');
    expect(messages.slice(1, 3)).toEqual([
      'user: DEMO STATE\nCommands:',
      'assistant: noop_agent0\nnoop_agent1',
    ]);
    expect(messages[3]).toContain('You command 2 agents (agent0, agent1)');
    expect(messages[3]).toContain('agent2 is played by a person: never command it.');
    // A window of one earlier exchange: the older one is gone.
    expect(messages.join('\n')).not.toContain('OLD STATE 1');
    expect(messages.slice(5, 7)).toEqual(['user: OLD STATE 2', 'assistant: OLD ANSWER 2']);
    expect(messages.at(-1)).toBe(
      'user: Feedback on your last commands:\n- goto_agent0_oven0: there is no oven0 in this kitchen\n\nSuggestions:\n- put the waste into the storage\n\nNOW STATE\n\nCommands:',
    );
  });

  it('leaves out the hints and the feedback in their ablations', () => {
    const messages = dispatchMessages({
      ...base,
      settings: { ...base.settings, hints: false, feedback: false },
    });
    expect(messages[0]!.content).toBe('RULES\n\nRecipes:\nRECIPES');
    expect(messages.at(-1)!.content).toBe('NOW STATE\n\nCommands:');
  });
});
