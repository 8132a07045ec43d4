/** `society nodes [TYPE]`: every node type with its ports and fields, as text, JSON or Markdown. */
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { describeShowWhen } from '../../node-sdk/show-when.ts';
import { UsageError } from '../errors.ts';
import {
  describeNodeType,
  type FieldInfo,
  type NodeTypeInfo,
  type PortInfo,
  SHARED_FIELDS,
} from '../node-types.ts';

export interface NodesFlags {
  json?: boolean;
  markdown?: boolean;
}

/** Prints the node types (or the one named) in the format the flags ask for. */
export async function nodesCommand(type: string | undefined, flags: NodesFlags): Promise<void> {
  if (flags.json && flags.markdown) throw new UsageError('use only one of --json and --markdown');
  const registry = await loadNodeRegistry();
  if (type !== undefined && !registry.get(type))
    throw new UsageError(
      `no node type "${type}" (types: ${[...registry.specs.keys()].join(', ')})`,
    );
  const types = [...registry.specs.values()]
    .filter((spec) => type === undefined || spec.type === type)
    .map(describeNodeType);
  if (flags.json) process.stdout.write(`${JSON.stringify(types, null, 2)}\n`);
  else if (flags.markdown) process.stdout.write(nodesMarkdown(types));
  else process.stdout.write(nodesText(types));
}

const port = (p: PortInfo) => `${p.name}: ${p.modality}${p.multiple ? ' (several)' : ''}`;
const defaultText = (f: FieldInfo) =>
  f.required ? 'required' : 'default' in f ? `default ${JSON.stringify(f.default)}` : 'optional';

/**
 * The README's node-type table: one row per type with what it does, its ports and its own
 * fields (README.md holds this output between markers; a test keeps them equal).
 */
export function nodesMarkdown(types: NodeTypeInfo[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const list = (items: string[]) =>
    items.length ? items.map((i) => `\`${cell(i)}\``).join(', ') : '—';
  const rows = types.map((t) => {
    const ins = t.ports.filter((p) => p.direction === 'in').map(port);
    const outs = t.ports.filter((p) => p.direction === 'out').map(port);
    const fields = t.fields.filter((f) => !f.shared).map((f) => f.name);
    return `| \`${t.type}\` | ${cell(t.description)} | ${list(ins)} | ${list(outs)} | ${list(fields)} |`;
  });
  return [
    '| type | what it does | inputs | outputs | fields |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Ports are those of a newly dropped node (an agent's inputs follow its prompt's \`{{ slots }}\`). Every type also takes ${SHARED_FIELDS.map((f) => `\`${f}\``).join(', ')}. \`society nodes TYPE\` prints a type's fields with their types and defaults, \`--json\` all of it.`,
    '',
  ].join('\n');
}

/** The terminal listing: each type, its ports by direction, its own fields with defaults. */
export function nodesText(types: NodeTypeInfo[]): string {
  const lines: string[] = [];
  for (const t of types) {
    lines.push(
      `${t.type} — ${t.title} (${t.group}${t.container ? `, ${t.container} container` : ''})`,
    );
    lines.push(`  ${t.description}`);
    const nameWidth = Math.max(
      4,
      ...t.ports.map((p) => p.name.length),
      ...t.fields.map((f) => f.name.length),
    );
    for (const p of t.ports) {
      const notes = [
        p.required ? 'required' : '',
        p.multiple ? 'several edges' : '',
        p.description ?? '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(
        `  ${p.direction.padEnd(5)} ${p.name.padEnd(nameWidth)}  ${p.modality}${notes ? `  (${notes})` : ''}`,
      );
    }
    const own = t.fields.filter((field) => !field.shared);
    const typeWidth = Math.max(0, ...own.map((f) => f.type.length));
    // Conditions line up after the defaults, unless a long default (a prompt) would push them
    // off the screen.
    const defaultWidth = Math.max(
      0,
      ...own.map((f) => defaultText(f).length).filter((width) => width <= 40),
    );
    for (const f of own) {
      const line = `  field ${f.name.padEnd(nameWidth)}  ${f.type.padEnd(typeWidth)}  ${defaultText(f)}`;
      // A field that applies in one mode says which, as the inspector shows it only then.
      lines.push(
        f.showWhen
          ? `${line.padEnd(line.length - defaultText(f).length + defaultWidth)}  (${describeShowWhen(f.showWhen)})`
          : line,
      );
    }
    lines.push('');
  }
  lines.push(`Every type also takes ${SHARED_FIELDS.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}
