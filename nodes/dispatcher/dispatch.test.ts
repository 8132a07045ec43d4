import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stepsOf } from '../../app/environments/step-report.ts';
import { eventsOf, run } from '../../tests/support/graphs.ts';

const template = JSON.parse(
  readFileSync(
    new URL('../../templates/cuisineworld-dispatcher-2.society.json', import.meta.url),
    'utf8',
  ),
);

describe('a simulated dispatcher', () => {
  it('plays a 2-agent episode on level_3 from its prompts: orders are served, nothing refused', async () => {
    const { outputs, events, status } = await run(template, { simulate: true });
    expect(status).toBe('succeeded');
    const metrics = outputs.metrics as Record<string, unknown>;
    expect(metrics).toMatchObject({ level: 'level_3', agents: 2, simulated: true });
    expect(metrics.completed).toBeGreaterThanOrEqual(1);
    expect(metrics.invalid).toEqual({});
    expect(String(outputs.summary)).toMatch(/^\[simulated\] level_3, 2 agents/);
    // Every answer is labelled, and every step says it was simulated.
    const answers = eventsOf(events, 'model.response');
    expect(answers.length).toBe(60);
    expect(answers.every((a) => a.simulated && a.text.startsWith('[simulated] '))).toBe(true);
    const steps = stepsOf(events);
    expect(steps).toHaveLength(60);
    expect(steps.every((s) => s.simulated && s.node === 'dispatcher')).toBe(true);
  });
});
