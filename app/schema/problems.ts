/**
 * A problem found in a document. Every problem names where it is: a node id when one is
 * involved, and always a JSON path, so the CLI prints one actionable line per problem and
 * the editor can highlight the node.
 */
export interface Problem {
  /** JSON path into the document, e.g. `nodes[3].data.prompt` or `edges[0].target`. */
  path: string;
  /** The node the problem is about, when there is one. */
  node?: string;
  message: string;
}

/** Formats `['nodes', 3, 'data', 'prompt']` as `nodes[3].data.prompt`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(document)';
}

/**
 * One line per problem, naming the node first when there is one. Ids, keys and values quoted
 * from a broken document may hold line breaks or control characters; they are escaped, so a
 * problem never takes more than its line.
 */
export function formatProblem(p: Problem): string {
  const line = p.node ? `node "${p.node}" (${p.path}): ${p.message}` : `${p.path}: ${p.message}`;
  return line.replace(LINE_BREAKERS, escapeChar);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const LINE_BREAKERS = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  return ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** An error carrying problems, thrown where a caller cannot continue. */
export class DocumentError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'DocumentError';
    this.problems = problems;
  }
}
