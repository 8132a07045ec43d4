/**
 * The prompt-template language of the inspector's Monaco editors: Liquid's `{{ slot }}` outputs
 * and `{% tag %}` blocks inside free text. This module is pure (no Monaco import) so its tokenizer
 * rules and completion logic are tested under Node; `setup.ts` registers them with Monaco.
 */

/** Monaco's language id for prompts, roles and transform templates. */
export const TEMPLATE_LANGUAGE = 'society-template';

/** Filters the product's templates can use: liquidjs's standard ones plus our own two. */
export const TEMPLATE_FILTERS: ReadonlyArray<{ name: string; detail: string }> = [
  { name: 'numbered', detail: 'a list as "1. first" lines' },
  { name: 'lettered', detail: 'a list as "(a) first (b) second", the multiple-choice form' },
  { name: 'join', detail: 'join a list with a separator: join: ", "' },
  { name: 'first', detail: 'the first item of a list' },
  { name: 'last', detail: 'the last item of a list' },
  { name: 'size', detail: 'the length of a list or text' },
  { name: 'upcase', detail: 'UPPER CASE' },
  { name: 'downcase', detail: 'lower case' },
  { name: 'strip', detail: 'trim surrounding whitespace' },
  { name: 'truncate', detail: 'cut to a number of characters: truncate: 200' },
  { name: 'default', detail: 'a fallback when empty: default: "none"' },
  { name: 'json', detail: 'the value as JSON' },
];

/** Variables every template may read without an input port (app/node-sdk/template.ts). */
export const RESERVED_HELP: Readonly<Record<string, string>> = {
  loop: 'inside a mindstorm: round, maxRounds, transcript and the previous round',
  run: 'the run: id and inputs',
  replica: 'inside a replicated node: index and count',
};

/**
 * Monarch rules: `{{ … }}` and `{% … %}` are tokenized as code (variables, filters, strings,
 * numbers); everything else is prose. Typed loosely so this file needs no Monaco types.
 */
export const templateMonarch = {
  defaultToken: '',
  tokenPostfix: '.tpl',
  tokenizer: {
    root: [
      [/\{\{-?/, { token: 'delimiter.slot', next: '@output' }],
      [/\{%-?/, { token: 'delimiter.tag', next: '@tag' }],
      [/[^{]+/, ''],
      [/\{/, ''],
    ],
    output: [
      [/-?\}\}/, { token: 'delimiter.slot', next: '@pop' }],
      [/\|\s*[a-zA-Z_][\w]*/, 'keyword.filter'],
      [/[a-zA-Z_][\w-]*/, 'variable.slot'],
      { include: '@values' },
    ],
    tag: [
      [/-?%\}/, { token: 'delimiter.tag', next: '@pop' }],
      [
        /\b(for|endfor|in|if|elsif|else|endif|unless|endunless|case|when|endcase|assign|capture|endcapture|break|continue|limit|offset|reversed|and|or|contains)\b/,
        'keyword',
      ],
      [/\|\s*[a-zA-Z_][\w]*/, 'keyword.filter'],
      [/[a-zA-Z_][\w-]*/, 'variable'],
      { include: '@values' },
    ],
    values: [
      [/"[^"]*"|'[^']*'/, 'string'],
      [/\d+(\.\d+)?/, 'number'],
      [/[.[\]:,=<>!]+/, 'operator'],
      [/\s+/, ''],
    ],
  },
} as const;

/** Brackets and auto-closing for the template language. */
export const templateLanguageConfiguration = {
  brackets: [
    ['{{', '}}'],
    ['{%', '%}'],
  ] as Array<[string, string]>,
  autoClosingPairs: [
    { open: '{', close: '}' },
    { open: '"', close: '"', notIn: ['string'] },
  ],
  surroundingPairs: [{ open: '{', close: '}' }],
};

/** What the cursor sits in, judged from the text before it on the document. */
export type TemplateContext =
  | { kind: 'prose' }
  /** Inside `{{ … }}` or `{% … %}` where a variable name goes; `prefix` is the word typed so far. */
  | { kind: 'variable'; prefix: string }
  /** Right after a `|`, where a filter name goes. */
  | { kind: 'filter'; prefix: string };

/** Where the cursor is: in prose, at a variable name, or at a filter name. */
export function templateContextAt(textBefore: string): TemplateContext {
  const open = Math.max(textBefore.lastIndexOf('{{'), textBefore.lastIndexOf('{%'));
  if (open < 0) return { kind: 'prose' };
  const inside = textBefore.slice(open + 2);
  if (/\}\}|%\}/.test(inside)) return { kind: 'prose' };
  const filter = /\|\s*([a-zA-Z_]\w*)?$/.exec(inside);
  if (filter) return { kind: 'filter', prefix: filter[1] ?? '' };
  const word = /(?:^|[\s\-(,:])([a-zA-Z_][\w-]*)?$/.exec(inside);
  // After a dot (loop.round) the name is a property: no completion of our own there.
  if (!word || /\.\s*[\w-]*$/.test(inside)) return { kind: 'prose' };
  return { kind: 'variable', prefix: word[1] ?? '' };
}

/** A completion offered in a template. */
export interface SlotSuggestion {
  label: string;
  kind: 'slot' | 'upstream' | 'reserved' | 'replica' | 'filter';
  detail: string;
}

/** What a node's templates can name, gathered from the document around it. */
export interface SlotSources {
  /** The node's own input slots (its ports, from every template field). */
  slots: readonly string[];
  /** Ids of nodes wired into this node, and the ports they are wired to. */
  upstream: ReadonlyArray<{ node: string; port: string }>;
  /** Inputs of the document (input nodes' names), which often become slots of the same name. */
  documentInputs: readonly string[];
  /** The name a replicated node or its container binds each item to (`item` by default). */
  replicaNames: readonly string[];
}

/** The suggestions for a context, best first, with no duplicate labels. */
export function templateSuggestions(
  context: TemplateContext,
  sources: SlotSources,
): SlotSuggestion[] {
  if (context.kind === 'prose') return [];
  const prefix = context.prefix.toLowerCase();
  const matches = (label: string) => label.toLowerCase().startsWith(prefix);
  if (context.kind === 'filter') {
    return TEMPLATE_FILTERS.filter((f) => matches(f.name)).map((f) => ({
      label: f.name,
      kind: 'filter',
      detail: f.detail,
    }));
  }
  const out: SlotSuggestion[] = [];
  const seen = new Set<string>();
  const add = (label: string, kind: SlotSuggestion['kind'], detail: string) => {
    if (seen.has(label) || !matches(label) || !/^[a-zA-Z_][\w-]*$/.test(label)) return;
    seen.add(label);
    out.push({ label, kind, detail });
  };
  for (const slot of sources.slots) {
    const wired = sources.upstream.find((u) => u.port === slot);
    add(slot, 'slot', wired ? `input, wired from ${wired.node}` : 'input, not wired yet');
  }
  for (const name of sources.replicaNames) add(name, 'replica', 'the item this replica runs for');
  for (const name of sources.documentInputs) add(name, 'upstream', 'a run input of this society');
  for (const u of sources.upstream) add(u.node, 'upstream', `node ${u.node}`);
  for (const [name, help] of Object.entries(RESERVED_HELP)) add(name, 'reserved', help);
  return out;
}
