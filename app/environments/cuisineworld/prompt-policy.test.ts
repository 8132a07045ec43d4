import { describe, expect, it } from 'vitest';
import { type DispatchSettings, dispatchMessages } from '../dispatch.ts';
import { cuisineWorldKind as kind } from './kind.ts';
import { commandsFromPrompt } from './prompt-policy.ts';

const settings: DispatchSettings = {
  behaviour: 'feedback',
  retries: 0,
  feedback: true,
  hints: true,
  history: 2,
};

/** Plays an episode where each step's commands come from the prompt a dispatcher is sent. */
function play(level: string, agents: number, seats: string[] = []) {
  const env = kind.create();
  env.reset({ level, agents, seed: 0, maxSteps: 60 });
  const briefing = kind.briefing(env);
  const demos = kind.demonstrations(level, agents, 1, 6);
  let refused = 0;
  let feedback: string[] = [];
  for (;;) {
    const messages = dispatchMessages({
      briefing,
      demos,
      agents: env.agents(),
      seats,
      settings,
      history: [],
      state: env.render(),
      feedback,
      suggestions: [],
    });
    const commands = commandsFromPrompt(messages.map((m) => String(m.content)));
    const step = env.step(commands);
    refused += step.validation.rejections.length;
    feedback = step.feedback;
    if (step.done) break;
  }
  return { ...env.metrics(), refused };
}

describe('the prompt-reading dispatcher', () => {
  it('completes orders on level_3 with 2 agents, with no command refused', () => {
    const m = play('level_3', 2);
    expect(m.completed).toBeGreaterThanOrEqual(1);
    expect(m.refused).toBe(0);
  });

  it('plays other kitchens too', () => {
    for (const level of ['level_0', 'level_1', 'level_4']) {
      expect(play(level, 2).completed, level).toBeGreaterThanOrEqual(1);
    }
  });

  it('reads the state it is shown and nothing else', () => {
    const env = kind.create();
    env.reset({ level: 'level_3', agents: 2, seed: 0 });
    const rules = dispatchMessages({
      briefing: kind.briefing(env),
      demos: [],
      agents: ['agent0', 'agent1'],
      seats: ['agent1'],
      settings,
      history: [],
      state: 'placeholder',
      feedback: [],
      suggestions: [],
    }).map((m) => String(m.content));
    // A made-up state: agent0 holds salmon at storage, the chopboards are free.
    const state = [
      'level: level_3 (L3, intermediate)',
      'step: 4 of 60',
      'orders (dish: steps left), most urgent first:',
      '  salmonSushi: 9',
      'agents:',
      '  at(agent0, storage0)',
      '  hold(agent0, salmon)',
      '  at(agent1, pot0)',
      '  hold(agent1, nothing)',
      'kitchen:',
      '  inside(storage0, nothing)',
      '  inside(servingtable0, nothing)',
      '  inside(chopboard0, nothing)',
      '  inside(chopboard1, nothing)',
      '  inside(mixer0, nothing)',
      '  inside(mixer1, nothing)',
      '  inside(pot0, cookedRice)',
      '  inside(pot1, nothing)',
      'accomplished: none yet',
      '',
      'Commands:',
    ].join('\n');
    // agent1 is a person's seat: only agent0 is commanded, and it carries the salmon on.
    expect(commandsFromPrompt([...rules.slice(0, -1), state])).toEqual(['goto_agent0_chopboard0']);
    expect(commandsFromPrompt(['no kitchen here'])).toEqual([]);
  });
});
