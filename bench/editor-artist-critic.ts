/**
 * A society of the Artist–Critic's shape (NLSOM Sec. 3): 26 artists, each a mindstorm of a
 * first answer, a questioner, an answerer and a leader (its proposal headed by its style),
 * replicated over art styles; 50 critics
 * replicated over professions, voting on the styles; a collector and a painter. The editor
 * benchmark (bench/editor.ts) opens it beside its grids, and the editor's tests build their
 * scenes from it, so what is measured and what is tested stay the shape the template has, even
 * where the shipped template (templates/nlsom-artist-critic.society.json) is not at hand.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import type { GraphDocument, GraphEdge, GraphNode } from '../app/schema/document.ts';
import { collapsedOwners } from '../renderer/model/collapse-rule.ts';

/** Art styles the artists are replicated over (26, as in the paper's setting). */
export const ART_STYLES = [
  'Abstract Expressionism',
  'Art Deco',
  'Art Nouveau',
  'Baroque',
  'Bauhaus',
  'Byzantine',
  'Color Field',
  'Constructivism',
  'Cubism',
  'Dadaism',
  'De Stijl',
  'Expressionism',
  'Fauvism',
  'Futurism',
  'Gothic',
  'Impressionism',
  'Minimalism',
  'Neoclassicism',
  'Op Art',
  'Pointillism',
  'Pop Art',
  'Post-Impressionism',
  'Realism',
  'Renaissance',
  'Rococo',
  'Surrealism',
];

const PROFESSION_STEMS = [
  'architect',
  'art historian',
  'baker',
  'botanist',
  'carpenter',
  'chemist',
  'dancer',
  'editor',
  'farmer',
  'firefighter',
  'gallery owner',
  'geologist',
  'illustrator',
  'journalist',
  'librarian',
  'mathematician',
  'museum curator',
  'nurse',
  'photographer',
  'pilot',
  'poet',
  'potter',
  'schoolteacher',
  'set designer',
  'tailor',
];

/** Professions the critics are replicated over (50). */
export const PROFESSIONS = PROFESSION_STEMS.flatMap((p) => [p, `retired ${p}`]);

const at = (x: number, y: number) => ({ x, y });

/**
 * The document, with `styles` artists and `professions` critics (26 and 50 by default), on
 * simulated-friendly model settings; positions as someone would arrange it by hand.
 */
export function artistCriticDocument(
  styles: readonly string[] = ART_STYLES,
  professions: readonly string[] = PROFESSIONS,
): GraphDocument {
  const nodes: GraphNode[] = [
    {
      id: 'object',
      type: 'input',
      position: at(0, 200),
      data: { name: 'object', modality: 'text', example: 'a lighthouse at dusk' },
    },
    {
      id: 'artists',
      type: 'group',
      position: at(300, 0),
      width: 940,
      height: 560,
      data: { label: 'Artists', replicate: { items: [...styles], as: 'style' } },
    },
    {
      id: 'storm',
      type: 'mindstorm',
      parentId: 'artists',
      position: at(30, 60),
      width: 880,
      height: 420,
      data: { label: 'Artist mindstorm', maxRounds: 3, members: ['answerer'] },
    },
    {
      id: 'first',
      type: 'agent',
      parentId: 'storm',
      position: at(30, 60),
      data: {
        label: 'First answer',
        stage: 'init',
        model: 'default',
        prompt: 'As a {{ style }} artist, describe how you would paint {{ object }}.',
      },
    },
    {
      id: 'questioner',
      type: 'agent',
      parentId: 'storm',
      position: at(300, 60),
      data: {
        label: 'Questioner',
        model: 'default',
        prompt:
          'A {{ style }} artist first proposed: {{ first }}\nTheir latest answer: {{ answer }}\nAsk one question that would make their picture of {{ object }} better.',
      },
    },
    {
      id: 'answerer',
      type: 'agent',
      parentId: 'storm',
      position: at(580, 60),
      data: {
        label: 'Answerer',
        model: 'default',
        prompt: 'As a {{ style }} artist, answer: {{ question }}',
      },
    },
    {
      id: 'leader',
      type: 'agent',
      parentId: 'storm',
      position: at(300, 240),
      data: {
        label: 'Leader',
        stage: 'gather',
        model: 'default',
        prompt:
          'Sum up the {{ style }} proposal for {{ object }} as one painting prompt:\n{{ notes }}',
      },
    },
    {
      id: 'entry',
      type: 'transform',
      parentId: 'artists',
      position: at(30, 440),
      data: { label: 'Proposal with its style', template: '{{ style }}: {{ proposal }}' },
    },
    {
      id: 'critic',
      type: 'agent',
      position: at(1340, 120),
      data: {
        label: 'Critics',
        replicate: { items: [...professions], as: 'profession' },
        model: 'default',
        slots: { proposals: 'list<text>' },
        prompt:
          'You are a {{ profession }}. Which of these proposals would you hang on your wall?\n{{ proposals | numbered }}\nName its style only.',
      },
    },
    {
      id: 'vote',
      type: 'vote',
      position: at(1640, 120),
      data: { label: 'Critics vote', rule: 'plurality', candidates: [...styles] },
    },
    {
      id: 'collector',
      type: 'agent',
      position: at(1940, 120),
      data: {
        label: 'Collector',
        model: 'default',
        slots: { proposals: 'list<text>' },
        prompt:
          'The critics chose {{ winner }}. From these proposals, write the final prompt in that style:\n{{ proposals | numbered }}',
      },
    },
    {
      id: 'painter',
      type: 'expert',
      position: at(2240, 120),
      data: { label: 'Painter', module: 'text-to-image-generation' },
    },
    { id: 'prompt', type: 'output', position: at(2240, 320), data: { name: 'prompt' } },
    { id: 'image', type: 'output', position: at(2540, 120), data: { name: 'image' } },
  ];
  const edge = (source: string, sourceHandle: string, target: string, targetHandle: string) => ({
    id: `${source}.${sourceHandle}->${target}.${targetHandle}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  });
  const edges: GraphEdge[] = [
    edge('object', 'value', 'first', 'object'),
    edge('object', 'value', 'questioner', 'object'),
    edge('object', 'value', 'leader', 'object'),
    edge('first', 'text', 'questioner', 'first'),
    edge('questioner', 'text', 'answerer', 'question'),
    {
      ...edge('answerer', 'text', 'questioner', 'answer'),
      data: { previousRound: true, initial: '(none yet)' },
    },
    edge('answerer', 'text', 'leader', 'notes'),
    edge('leader', 'text', 'entry', 'proposal'),
    edge('entry', 'value', 'critic', 'proposals'),
    edge('critic', 'text', 'vote', 'ballots'),
    edge('vote', 'winner', 'collector', 'winner'),
    edge('entry', 'value', 'collector', 'proposals'),
    edge('collector', 'text', 'painter', 'prompt'),
    edge('collector', 'text', 'prompt', 'value'),
    edge('painter', 'image', 'image', 'value'),
  ];
  return {
    version: 1,
    name: 'Artist–Critic (generated shape)',
    description:
      'The shape of the NLSOM Artist–Critic (Sec. 3): 26 artist mindstorms, 50 critics voting, a collector and a painter.',
    models: { default: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 80 } },
    nodes,
    edges,
  };
}

/** Where the shipped template is, when this checkout has it. */
export const ARTIST_CRITIC_TEMPLATE = fileURLToPath(
  new URL('../templates/nlsom-artist-critic.society.json', import.meta.url),
);

/** The Artist–Critic the benchmark opens: the shipped template, else a generated one. */
export function artistCriticForBench(): { doc: GraphDocument; source: 'template' | 'generated' } {
  if (existsSync(ARTIST_CRITIC_TEMPLATE)) {
    return {
      doc: JSON.parse(readFileSync(ARTIST_CRITIC_TEMPLATE, 'utf8')) as GraphDocument,
      source: 'template',
    };
  }
  return { doc: artistCriticDocument(), source: 'generated' };
}

/**
 * How many node cards the editor draws for a document: members of a container it opens
 * collapsed are hidden (renderer/model/collapse-rule.ts, the editor's own rule).
 */
export async function drawnNodeCount(doc: GraphDocument): Promise<number> {
  const registry = await loadNodeRegistry();
  const isContainer = (type: string | undefined) =>
    type !== undefined && registry.specs.get(type)?.container !== undefined;
  return doc.nodes.length - collapsedOwners(doc.nodes, isContainer).size;
}
