/**
 * The mindstorm the resume tests break: an organizer who reads the whole transcript each round,
 * replicated members who answer it, and a leader who decides from the record. Its calls depend
 * only on their prompts, so an interrupted run can be compared with an unbroken one.
 */

/** How big the storm is and how it runs. */
export interface StormOptions {
  name: string;
  rounds: number;
  members: number;
  settings: Record<string, unknown>;
}

/** Calls an unbroken run makes: the organizer and every member each round, then the leader. */
export function stormCalls(o: Pick<StormOptions, 'rounds' | 'members'>): number {
  return o.rounds * (1 + o.members) + 1;
}

/** The storm as a document, its one model `m` an OpenAI profile (point it at a stub). */
export function stormSociety(o: StormOptions) {
  return {
    version: 1,
    name: o.name,
    models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 20 } },
    settings: o.settings,
    nodes: [
      { id: 'topic', type: 'input', position: { x: 0, y: 0 }, data: { name: 'topic' } },
      {
        id: 'storm',
        type: 'mindstorm',
        position: { x: 0, y: 0 },
        data: { maxRounds: o.rounds, members: ['member'] },
      },
      {
        id: 'organizer',
        type: 'agent',
        parentId: 'storm',
        position: { x: 0, y: 0 },
        data: {
          model: 'm',
          prompt:
            'ORGANIZER {{ topic }} round {{ loop.round }}: {% for m in loop.transcript %}{{ m.from }}={{ m.text }}; {% endfor %}',
        },
      },
      {
        id: 'member',
        type: 'agent',
        parentId: 'storm',
        position: { x: 0, y: 0 },
        data: {
          model: 'm',
          replicate: { items: [...Array(o.members).keys()].map((i) => `member ${i}`), as: 'who' },
          prompt: 'You are {{ who }}. {{ q }}',
        },
      },
      {
        id: 'leader',
        type: 'agent',
        position: { x: 0, y: 0 },
        data: { model: 'm', prompt: 'LEADER decide: {{ record }}' },
      },
      { id: 'answer', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
    ],
    edges: [
      {
        id: 'e1',
        source: 'topic',
        sourceHandle: 'value',
        target: 'organizer',
        targetHandle: 'topic',
      },
      { id: 'e2', source: 'organizer', sourceHandle: 'text', target: 'member', targetHandle: 'q' },
      {
        id: 'e3',
        source: 'storm',
        sourceHandle: 'transcript',
        target: 'leader',
        targetHandle: 'record',
      },
      { id: 'e4', source: 'leader', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
    ],
  };
}
