/**
 * Large, realistic society documents for the editor benchmark (bench/editor.ts): panels of
 * agents that propose, critique and vote, gathered by one summarizer, laid out on a grid the way
 * someone would arrange them by hand. Every document compiles (tests/bench-documents.test.ts).
 */
import type { GraphDocument, GraphEdge, GraphNode } from '../app/schema/document.ts';

/** Proposers (and as many critics) per panel; with its vote a panel is 2 × this + 1 nodes. */
const PANEL_SIZE = 4;
/** Grid cell of one node: an agent card is 220 × 103 px on the canvas, a vote 220 × 143. */
const CELL = { width: 260, height: 150 };
/** Room between panels. */
const GAP = 80;
/**
 * Width over height of the grid of panels: the editor's canvas in a 1920 × 1080 window is about
 * 1380 × 720, so zoomed out to fit (down to React Flow's 10% minimum) every node is in view.
 */
const ASPECT = 1.9;

const QUESTION_NAME = 'question';
const CONTEXT_NAME = 'context';

const PERSPECTIVES = [
  'an economist who weighs costs against benefits',
  'a historian who looks for precedents',
  'an engineer who asks what could break',
  'a lawyer who reads the fine print',
  'a nurse who thinks of the people affected',
  'a teacher who explains things simply',
  'a sceptic who doubts every easy answer',
  'an optimist who looks for what could go right',
];

/**
 * A society of exactly `n` nodes (n ≥ 8): two inputs, ⌊(n − 4) / 9⌋ panels of four proposers,
 * four critics and a vote, a few extra observers to reach n, a summarizer and an output.
 * Edges: question and context into every agent, each proposer into its critic, critics into
 * their panel's vote, every vote's winner (and every observer) into the summarizer.
 */
export function societyDocument(n: number): GraphDocument {
  if (!Number.isInteger(n) || n < 8) throw new Error(`a benchmark society needs at least 8 nodes`);
  const panelNodes = 2 * PANEL_SIZE + 1;
  const panels = Math.floor((n - 4) / panelNodes);
  const observers = n - 4 - panels * panelNodes;

  // Panels are blocks of 3 columns × PANEL_SIZE rows, arranged in a grid of the canvas' shape.
  const block = { width: 3 * CELL.width + GAP, height: PANEL_SIZE * CELL.height + GAP };
  const blocks = panels + (observers > 0 ? 1 : 0);
  const perRow = Math.max(1, Math.round(Math.sqrt((blocks * ASPECT * block.height) / block.width)));
  const rows = Math.ceil(blocks / perRow);
  const origin = { x: CELL.width + GAP, y: 0 };
  const blockAt = (b: number, column: number, row: number) => ({
    x: origin.x + (b % perRow) * block.width + column * CELL.width,
    y: origin.y + Math.floor(b / perRow) * block.height + row * CELL.height,
  });
  const middle = Math.round((rows * block.height) / 2);

  const nodes: GraphNode[] = [
    {
      id: QUESTION_NAME,
      type: 'input',
      position: { x: 0, y: middle - CELL.height },
      data: {
        name: QUESTION_NAME,
        modality: 'text',
        description: 'The decision the society is asked to make.',
      },
    },
    {
      id: CONTEXT_NAME,
      type: 'input',
      position: { x: 0, y: middle },
      data: {
        name: CONTEXT_NAME,
        modality: 'text',
        description: 'Background: budgets, constraints, who is affected.',
      },
    },
  ];
  const edges: GraphEdge[] = [];
  const link = (source: string, sourceHandle: string, target: string, targetHandle: string) => {
    edges.push({
      id: `${source}.${sourceHandle}->${target}.${targetHandle}`,
      source,
      sourceHandle,
      target,
      targetHandle,
    });
  };

  const gathered: string[] = [];
  for (let p = 0; p < panels; p++) {
    const vote = `panel${p}_vote`;
    for (let j = 0; j < PANEL_SIZE; j++) {
      const proposer = `panel${p}_proposer${j}`;
      const critic = `panel${p}_critic${j}`;
      const perspective = PERSPECTIVES[(p + j) % PERSPECTIVES.length]!;
      nodes.push({
        id: proposer,
        type: 'agent',
        position: blockAt(p, 0, j),
        data: {
          label: `Panel ${p + 1} · proposer ${j + 1}`,
          model: 'proposer',
          role: `You are ${perspective}. You sit on panel ${p + 1} of a citizens' assembly.`,
          prompt:
            'Question: {{ question }}\n\nBackground: {{ context }}\n\n' +
            'Propose one course of action in two sentences, then name its biggest risk.',
          temperature: 0.7,
          maxTokens: 200,
        },
      });
      nodes.push({
        id: critic,
        type: 'agent',
        position: blockAt(p, 1, j),
        data: {
          label: `Panel ${p + 1} · critic ${j + 1}`,
          model: 'critic',
          role: 'You are a fair but demanding critic. You answer with one option letter only.',
          prompt:
            'Question: {{ question }}\n\nA panellist proposed:\n{{ proposal }}\n\n' +
            'Should the assembly (a) adopt it, (b) amend it or (c) reject it?',
          parse: 'choice',
          temperature: 0,
          maxTokens: 5,
        },
      });
      link(QUESTION_NAME, 'value', proposer, QUESTION_NAME);
      link(CONTEXT_NAME, 'value', proposer, CONTEXT_NAME);
      link(QUESTION_NAME, 'value', critic, QUESTION_NAME);
      link(proposer, 'text', critic, 'proposal');
      link(critic, 'text', vote, 'ballots');
    }
    nodes.push({
      id: vote,
      type: 'vote',
      position: blockAt(p, 2, (PANEL_SIZE - 1) / 2),
      data: {
        label: `Panel ${p + 1} decides`,
        rule: p % 3 === 0 ? 'majority' : 'plurality',
        tieBreak: 'first',
        candidates: ['a', 'b', 'c'],
      },
    });
    gathered.push(vote);
  }
  for (let k = 0; k < observers; k++) {
    const observer = `observer${k}`;
    nodes.push({
      id: observer,
      type: 'agent',
      position: blockAt(panels, Math.floor(k / PANEL_SIZE), k % PANEL_SIZE),
      data: {
        label: `Observer ${k + 1}`,
        model: 'proposer',
        role: 'You watch the assembly from the public gallery.',
        prompt: 'In one sentence, what would most people in town say to: {{ question }}',
        maxTokens: 60,
      },
    });
    link(QUESTION_NAME, 'value', observer, QUESTION_NAME);
    gathered.push(observer);
  }

  const right = origin.x + Math.min(blocks, perRow) * block.width;
  nodes.push(
    {
      id: 'summary',
      type: 'summarize',
      position: { x: right, y: middle - CELL.height / 2 },
      data: {
        label: 'Assembly summary',
        mode: 'model',
        model: 'chair',
        instructions:
          'Below are the panels’ decisions and the observers’ remarks. Say in three sentences ' +
          'what the assembly decided and where it disagreed.',
        maxTokens: 300,
      },
    },
    {
      id: 'decision',
      type: 'output',
      position: { x: right + CELL.width, y: middle - CELL.height / 2 },
      data: { name: 'decision' },
    },
  );
  for (const id of gathered)
    link(id, id.startsWith('observer') ? 'text' : 'winner', 'summary', 'text');
  link('summary', 'summary', 'decision', 'value');

  return {
    version: 1,
    name: `Citizens' assembly of ${n} nodes`,
    description:
      'Generated for the editor benchmark: panels of proposers and critics vote, a chair sums up.',
    models: {
      proposer: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0.7 },
      critic: { provider: 'openai', model: 'gpt-4.1-nano', temperature: 0 },
      chair: { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2 },
    },
    settings: { concurrency: { default: 8 }, seed: 1 },
    nodes,
    edges,
  };
}

/** The workspace file name of the benchmark society with `n` nodes. */
export function societyFileName(n: number): string {
  return `bench-${n}-nodes.society.json`;
}
