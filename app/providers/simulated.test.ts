import { describe, expect, it } from 'vitest';
import { SimulatedProvider, simulateText } from './simulated.ts';
import type { ChatRequest } from './types.ts';

const call = () => ({ signal: AbortSignal.timeout(10_000) });
const ask = (user: string, system = 'You are a member of a small council.'): ChatRequest => ({
  model: 'sim-1',
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
});

describe('SimulatedProvider', () => {
  it('is deterministic and clearly labelled', async () => {
    const provider = new SimulatedProvider();
    const request = ask('Should the village build a bridge or a ferry?');
    const a = await provider.chat(request, call());
    const b = await new SimulatedProvider().chat(structuredClone(request), call());
    expect(a).toEqual(b);
    expect(a.text.startsWith('[simulated] ')).toBe(true);
    expect(a).toMatchObject({ simulated: true, source: 'simulated', model: 'sim-1' });
    expect(provider.id).toBe('simulated');
    const promptChars =
      'You are a member of a small council.\nShould the village build a bridge or a ferry?'.length;
    expect(a.usage).toEqual({
      promptTokens: Math.ceil(promptChars / 4),
      completionTokens: Math.ceil(a.text.length / 4),
    });
  });

  it('varies with the request', () => {
    const texts = new Set(
      ['bridges', 'ferries', 'tunnels', 'boats', 'roads', 'rails'].map((topic) =>
        simulateText(ask(`What do you think about ${topic} for the valley crossing?`)),
      ),
    );
    expect(texts.size).toBeGreaterThan(1);
  });

  it('answers multiple-choice prompts with one of the offered letters', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const text = simulateText(
        ask(`Vote ${i}. Answer with (a), (b) or (c): (a) bridge (b) ferry (c) tunnel`),
      );
      expect(text).toMatch(/^\[simulated\] \([abc]\)$/);
      seen.add(text);
    }
    expect(seen.size).toBeGreaterThan(1);
    expect(simulateText(ask('Pick (x) or (y).'))).toMatch(/^\[simulated\] \([xy]\)$/);
  });

  it('asks a short question when asked for one', () => {
    const text = simulateText(
      ask('The plan is to build a stone bridge by spring.', 'Ask one probing question (end by ?)'),
    );
    expect(text).toMatch(/^\[simulated\] .+\?$/);
    expect(text.length).toBeLessThan(120);
  });

  it('summarizes by quoting a few words of the input', () => {
    const input =
      'The council debated the stone bridge versus the ferry and most members preferred the ferry';
    const text = simulateText(ask(`Summarize the discussion: ${input}`));
    expect(text.startsWith('[simulated] Summary: ')).toBe(true);
    const quoted = /"([^"]+)"/.exec(text)?.[1];
    expect(quoted?.split(' ').length).toBeGreaterThanOrEqual(2);
    expect(`Summarize the discussion: ${input}`).toContain(quoted);
    expect(text.split(/[.!?](\s|$)/).filter((s) => s.trim()).length).toBeLessThanOrEqual(2);
  });

  it('otherwise says a short sentence with a fragment of the prompt', () => {
    const prompt = 'Consider the harvest festival budget for next year';
    const text = simulateText(ask(prompt));
    const quoted = /"([^"]+)"/.exec(text)?.[1];
    expect(quoted && prompt.includes(quoted)).toBe(true);
    expect(text.endsWith('.')).toBe(true);
  });

  it('streams word chunks that add up to the text', async () => {
    const deltas: string[] = [];
    const result = await new SimulatedProvider().chat(
      { ...ask('Stream please'), stream: true },
      { ...call(), onDelta: (d) => deltas.push(d) },
    );
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(result.text);
  });

  it('has abortable latency', async () => {
    const controller = new AbortController();
    const pending = new SimulatedProvider({ latencyMs: 10_000 }).chat(ask('slow'), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
