/** A small debate for the interview tests: three members over three rounds, on provider `openai`. */
import { agent, edge, graph, input, node, output } from './graphs.ts';

const inStorm = { parentId: 'storm' };

/** Three members over three rounds, each remembering its own earlier rounds. */
export const DEBATE = graph(
  [
    input('question'),
    node('storm', 'mindstorm', { maxRounds: 3, members: ['member'], leader: 'leader' }),
    agent('organizer', 'ORGANIZER round {{ loop.round }}: {{ question }}', {}, inStorm),
    agent(
      'member',
      'MEMBER {{ who }}: {{ subquestion }}',
      {
        role: 'You are {{ who }}, a careful debater.',
        history: 'all',
        replicate: { items: ['ann', 'bob', 'cy'], as: 'who' },
      },
      inStorm,
    ),
    node('summary', 'summarize', { mode: 'concatenate', stage: 'gather' }, inStorm),
    agent('leader', 'LEADER: {{ question }} Notes: {{ notes }}', { stage: 'decide' }, inStorm),
    output('answer'),
  ],
  [
    edge('question.value', 'organizer.question'),
    edge('question.value', 'leader.question'),
    edge('organizer.text', 'member.subquestion'),
    edge('summary.summary', 'leader.notes'),
    edge('leader.text', 'answer.value'),
  ],
  { models: { m: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0 } } },
);
