/**
 * Lists edited as lines: a list of texts (a vote's candidates) and a node's replication (26 art
 * styles, 50 professions), one item per line, so a long list is read and changed as a column
 * rather than as JSON. Blank lines are left out. A replication whose items are not all texts
 * (numbers, objects) is edited as JSON instead: lines would turn them into texts.
 */
import { useState } from 'react';
import { isParamRef } from '../../app/schema/params.ts';
import { updateMeta, useEditor } from '../store.ts';

/** Non-blank lines of a text. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/**
 * A textarea holding one item per line. What was typed is kept while the field has focus (a
 * blank line on the way to the next item), and what the document holds is shown otherwise.
 */
export function LinesField({
  id,
  testId,
  value,
  onChange,
  placeholder,
}: {
  id: string;
  testId: string;
  value: readonly string[];
  onChange: (items: string[]) => void;
  placeholder?: string;
}) {
  const [text, setText] = useState<string | null>(null);
  const rows = Math.min(12, Math.max(3, value.length + 1));
  return (
    <textarea
      id={id}
      rows={rows}
      spellCheck={false}
      data-testid={testId}
      value={text ?? value.join('\n')}
      placeholder={placeholder ?? 'one per line'}
      onChange={(e) => {
        setText(e.target.value);
        onChange(linesOf(e.target.value));
      }}
      onBlur={() => setText(null)}
    />
  );
}

/** A replicate value as the inspector edits it: items are texts, or a list parameter's. */
type ReplicateValue = { items?: string[] | { $param: string }; as?: string } | undefined;

/**
 * Whether a replicate value can be edited as lines: absent, every item a text, or the items
 * taken from a template parameter (`{ "$param": "styles" }`).
 */
export function replicateAsLines(value: unknown): value is ReplicateValue {
  if (value === undefined) return true;
  if (!value || typeof value !== 'object') return false;
  const items = (value as { items?: unknown }).items;
  return (
    items === undefined ||
    isParamRef(items) ||
    (Array.isArray(items) && items.every((i) => typeof i === 'string'))
  );
}

/**
 * A node's replication: the items, one per line (no lines: not replicated), and the name the
 * copies' templates read their item by (`{{ style }}`).
 */
export function ReplicateField({
  id,
  testId,
  value,
  onChange,
}: {
  id: string;
  testId: string;
  value: ReplicateValue;
  onChange: (value: ReplicateValue) => void;
}) {
  const as = value?.as;
  const param = isParamRef(value?.items) ? value.items.$param : undefined;
  const declared = useEditor((s) => (param ? s.meta.params?.[param] : undefined));
  const paramItems =
    declared?.type === 'list' && Array.isArray(declared.default) ? declared.default : undefined;
  const items = Array.isArray(value?.items) ? value.items : (paramItems ?? []);
  return (
    <div className="replicate-field" data-testid={testId}>
      {param ? <ParamListNote param={param} declared={paramItems !== undefined} /> : null}
      {param && !paramItems ? null : (
        <LinesField
          id={id}
          testId={`${testId}.items`}
          value={items}
          placeholder="one copy per line; empty: a single node"
          onChange={(next) => {
            if (param && declared?.type === 'list') {
              // The list is the parameter's: its default is what is edited, so every node and
              // vote that follows the parameter changes with it.
              const params = useEditor.getState().meta.params ?? {};
              updateMeta(
                { params: { ...params, [param]: { ...declared, default: next } } },
                `param:${param}`,
              );
            } else {
              onChange(
                next.length ? { items: next, ...(as !== undefined ? { as } : {}) } : undefined,
              );
            }
          }}
        />
      )}
      <label className="replicate-as">
        each copy sees its item as{' '}
        <input
          type="text"
          data-testid={`${testId}.as`}
          value={as ?? ''}
          placeholder="item"
          disabled={items.length === 0}
          onChange={(e) => {
            const name = e.target.value.trim();
            onChange({ items: value?.items ?? items, ...(name ? { as: name } : {}) });
          }}
        />
        <span className="field-hint">
          {items.length
            ? `${items.length} ${items.length === 1 ? 'copy' : 'copies'}; {{ ${as || 'item'} }} in prompts`
            : 'not replicated'}
        </span>
      </label>
    </div>
  );
}

/** Says that the copies' items are a template parameter's list, edited here as its default. */
function ParamListNote({ param, declared }: { param: string; declared: boolean }) {
  return (
    <div
      className={`param-chip${declared ? '' : ' field-problem'}`}
      title="A run may set another list in the Inputs panel"
    >
      {declared
        ? `parameter ${param}: its default list, one per line`
        : `the document declares no list parameter "${param}"`}
    </div>
  );
}
