import { z } from 'zod';
import {
  baseData,
  firstLine,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../app/node-sdk/common.ts';
import { defineNode, type PortSpec, type ToolOffer } from '../../app/node-sdk/define.ts';
import { isGivenModality } from '../../app/node-sdk/tool-modalities.ts';
import { type Modality, TOOL_MODALITY } from '../../app/schema/modality.ts';
import { agentCalls } from './estimate.ts';

/** How an agent's answer is read before it leaves the node. */
export const PARSE_MODES = ['text', 'question', 'choice', 'json', 'lines'] as const;

const OUTPUT_MODALITY: Record<(typeof PARSE_MODES)[number], Modality> = {
  text: 'text',
  question: 'text',
  choice: 'text',
  json: 'json',
  lines: 'list<text>',
};

/** Keys that would make a document start or reach a server itself: refused, whatever else is there. */
const SERVER_KEYS = ['command', 'args', 'url', 'env', 'headers', 'cwd'];

const TOOL_KEYS = ['mcp', 'allow', 'graph', 'name', 'description'];

/**
 * One source of an agent's tools: an MCP server profile, `{ "mcp": "NAME", "allow": ["tool", …] }`,
 * or a graph of the document's library offered as one tool, `{ "graph": "NAME" }` (its name and
 * description the graph's unless `name` and `description` say otherwise).
 */
const toolEntry = z
  .looseObject({
    mcp: z.string().min(1).max(100).optional(),
    allow: z.array(z.string().min(1).max(64)).optional(),
    graph: z.string().min(1).max(100).optional(),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name is 1 to 64 letters, digits, _ or -')
      .optional(),
    description: z.string().max(2000).optional(),
  })
  .superRefine((entry, ctx) => {
    const server = Object.keys(entry).filter((k) => SERVER_KEYS.includes(k));
    if (server.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [server[0]!],
        message: `a tools entry names an MCP server profile of your settings ({ "mcp": "NAME" }), never a command line or a URL ("${server[0]}"): add the server with \`society mcp --add\``,
      });
      return;
    }
    const other = Object.keys(entry).filter((k) => !TOOL_KEYS.includes(k));
    if (other.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [other[0]!],
        message: `unknown key "${other[0]}" in a tools entry (it takes "mcp" and "allow", or "graph", "name" and "description")`,
      });
    }
    if ((entry.mcp === undefined) === (entry.graph === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['mcp'],
        message:
          'a tools entry names an MCP server profile, { "mcp": "NAME" }, or a graph of the document\'s library, { "graph": "NAME" }: one of them',
      });
      return;
    }
    const wrong =
      entry.mcp !== undefined
        ? ['name', 'description'].find((k) => k in entry)
        : 'allow' in entry
          ? 'allow'
          : undefined;
    if (wrong) {
      ctx.addIssue({
        code: 'custom',
        path: [wrong],
        message:
          wrong === 'allow'
            ? 'a graph offered as a tool is one tool: "allow" belongs to an MCP entry'
            : `"${wrong}" renames a graph offered as a tool; an MCP server's tools keep their own`,
      });
    }
  });

export const agentData = z.strictObject({
  ...baseData,
  /** The system message: who the agent is. A template, so replicas can differ (`{{ item }}`). */
  role: z.string().default('').meta({ editor: 'code', language: 'liquid', lines: 3 }),
  /** The user message, with named slots (`{{ question }}`) that become input ports. */
  prompt: z.string().min(1, 'an agent needs a prompt').meta({
    editor: 'code',
    language: 'liquid',
    lines: 6,
    placeholder: 'Write the prompt; {{ name }} makes an input.',
  }),
  /** Modalities of slots that are not plain text, e.g. `{ "answers": "list<text>" }`. */
  slots: slotsSchema,
  /** A model profile name from the document's `models`; may be a template such as `{{ item }}`. */
  model: z.string().min(1).meta({ editor: 'model-profile' }),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** Adds an `image` input sent with the prompt (vision-language models). */
  vision: z.boolean().default(false),
  /**
   * Inside a mindstorm: what the agent remembers of its own earlier rounds. `none` sends only
   * this round's prompt; `all` replays every earlier exchange; a number keeps the last N (0 is
   * `none`, so a parameter can switch memory off).
   */
  history: z.union([z.enum(['none', 'all']), z.number().int().min(0)]).default('none'),
  /**
   * A conversation shared with the other agents of the same loop entry that name the same
   * thread (a first mate asking every round and summing up at the gather stage): their
   * exchanges go into one memory, which `history` reads. Without it the agent keeps its own.
   */
  thread: z.string().min(1).max(100).optional(),
  /**
   * `question` keeps the text up to the first "?"; `choice` extracts an option letter such as
   * "(b)"; `json` parses JSON; `lines` splits into a list.
   */
  parse: z.enum(PARSE_MODES).default('text'),
  stream: z.boolean().default(false),
  /**
   * Tools the agent may call (function calling): each entry names an MCP server profile of the
   * user's settings and, optionally, which of its tools (`allow`; every one without it), or a
   * graph of the document's library, offered as one tool whose arguments are its inputs. A
   * document names profiles only: a command line or a URL has no place here.
   */
  tools: z.array(toolEntry).default([]),
  /** Most model → tools → model rounds in one turn; a model still asking for tools after them fails the node. */
  maxToolRounds: z.number().int().min(1).max(64).default(8),
  /** Most tool calls this node may make in a run (every copy and round together). */
  maxToolCalls: z.number().int().nonnegative().optional(),
});
export type AgentData = z.infer<typeof agentData>;

/** An LLM with a role and a prompt template; the workhorse of every society. */
export const spec = defineNode({
  type: 'agent',
  title: 'Agent',
  group: 'Minds',
  description:
    'A language model with a role and a prompt template. Each {{ slot }} in the prompt becomes an input.',
  data: agentData,
  ports(data, context) {
    const inputs: PortSpec[] = slotPorts([data.role, data.prompt], data);
    if (data.vision) inputs.push({ name: 'image', modality: 'image', required: true });
    // A graph tool's inputs a model cannot write (an image) are the agent's, given to each call.
    for (const entry of data.tools) {
      const ports = entry.graph ? context?.subgraphPorts(entry.graph) : undefined;
      for (const port of ports?.inputs ?? []) {
        if (!isGivenModality(port.modality) || inputs.some((p) => p.name === port.name)) continue;
        inputs.push({ name: port.name, modality: port.modality, required: true });
      }
    }
    // Nodes wired here are offered as tools (app/compiler/wired-tools.ts): no value arrives.
    inputs.push({ name: 'tools', modality: TOOL_MODALITY, multiple: true });
    return { inputs, outputs: [{ name: 'text', modality: OUTPUT_MODALITY[data.parse] }] };
  },
  // The answering calls of the budget-matched baselines (app/eval/baselines).
  baseline: {
    answer: (r) => ({
      data: {
        label: r.copies ? `${r.copies.length} answers` : 'One answer',
        model: r.copies ? '{{ profile }}' : r.profile,
        prompt: r.prompt,
        vision: r.vision,
        ...(r.maxTokens !== undefined ? { maxTokens: r.maxTokens } : {}),
        ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
        ...(r.parse !== undefined ? { parse: r.parse } : {}),
        ...(r.copies ? { replicate: { items: r.copies, as: 'profile' } } : {}),
      },
      ...(r.vision ? { input: 'image' } : {}),
      output: 'text',
    }),
  },
  models: (data) => [data.model],
  toolSources: (data) =>
    data.tools.flatMap((t): ToolOffer['source'][] =>
      t.mcp
        ? [{ kind: 'mcp', profile: t.mcp }]
        : t.graph
          ? [{ kind: 'graph', graph: t.graph }]
          : [],
    ),
  withToolGraphs: (data, wired) => ({
    ...data,
    tools: [
      ...(Array.isArray(data.tools) ? data.tools : []),
      ...wired.map((t) => ({ graph: t.graph, name: t.name, description: t.description })),
    ],
  }),
  check: (data) => templateProblems({ role: data.role, prompt: data.prompt, model: data.model }),
  callsPerRun: () => 1,
  // Plain text from one call (no tool rounds) is the answer as it streams, trimmed.
  streamedText: (data) => (data.parse === 'text' && data.tools.length === 0 ? 'text' : undefined),
  sendsMessage: true,
  // Left out of a run (`society credit`), an agent answers nothing: an empty text, no message
  // (a reader wired to it, or a mindstorm's right to know, sees the empty answer).
  credit: { leaveOut: () => ({ text: '' }) },
  thread: (data) => data.thread,
  estimate: agentCalls,

  summary: (data) => [data.model, firstLine(data.prompt)].filter(Boolean).join(' · '),
  initialData: ({ profile }) => ({ prompt: '{{ question }}', model: profile }),
});
