import { type ReactNode, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { formatProblem } from '../../app/schema/problems.ts';
import { type FlowNode, isContainer, readDocument, toDocument } from '../model/document.ts';
import { specOf } from '../model/registry.ts';
import { currentDocument, replaceDocument, replaceNode, updateMeta, useEditor } from '../store.ts';
import { JsonEditor } from './JsonEditor.tsx';
import { NodeForm } from './NodeForm.tsx';
import { SubsocietyFields } from './SubsocietyFields.tsx';

export function Inspector() {
  const tab = useEditor((s) => s.inspectorTab);
  return (
    <aside className="inspector" aria-label="Inspector">
      <div className="tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'node'}
          className={tab === 'node' ? 'active' : ''}
          data-testid="inspector-tab-node"
          onClick={() => useEditor.setState({ inspectorTab: 'node' })}
        >
          Node
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'document'}
          className={tab === 'document' ? 'active' : ''}
          data-testid="inspector-tab-document"
          onClick={() => useEditor.setState({ inspectorTab: 'document' })}
        >
          Document
        </button>
      </div>
      <div className="inspector-body">{tab === 'node' ? <NodeTab /> : <DocumentTab />}</div>
    </aside>
  );
}

function NodeTab() {
  const selectedIds = useEditor(
    useShallow((s) => s.nodes.filter((n) => n.selected).map((n) => n.id)),
  );
  const node = useEditor((s) =>
    selectedIds.length === 1 ? s.nodes.find((n) => n.id === selectedIds[0]) : undefined,
  );
  if (selectedIds.length === 0) {
    return (
      <p className="muted" data-testid="inspector-empty">
        Select a node to edit it, or drag one in from the palette.
      </p>
    );
  }
  if (!node) return <p className="muted">{selectedIds.length} nodes selected.</p>;
  const spec = specOf(node.type);
  return (
    <div data-testid="inspector-node">
      <h2 className="inspector-title">
        {spec?.title ?? node.type} <code>{node.id}</code>
      </h2>
      {spec ? <p className="muted small">{spec.description}</p> : null}
      {node.parentId ? (
        <p className="muted small">
          Inside <code>{node.parentId}</code>
        </p>
      ) : null}
      <NodeForm node={node} />
      <SubsocietyFields node={node} />
      <NodeJson node={node} />
    </div>
  );
}

/** The node as it will be saved; editable, applied only when it is a valid node. */
function NodeJson({ node }: { node: FlowNode }) {
  return (
    <Lazy summary="Raw JSON">
      <NodeJsonEditor node={node} />
    </Lazy>
  );
}

/**
 * A closed section renders nothing: raw JSON is serialized only while someone looks at it,
 * not on every frame of a drag.
 */
function Lazy({ summary, children }: { summary: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="raw" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {open ? children : null}
    </details>
  );
}

function NodeJsonEditor({ node }: { node: FlowNode }) {
  const value = useMemo(
    () => toDocument({ meta: {} as never, nodes: [node], edges: [] }).nodes[0],
    [node],
  );
  return (
    <JsonEditor
      label={`Node ${node.id} as saved`}
      value={value}
      testId="node-json"
      rows={14}
      onApply={(parsed) => applyNodeJson(node, parsed)}
    />
  );
}

function applyNodeJson(node: FlowNode, parsed: unknown): string | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return 'a node is a JSON object';
  const next = parsed as Record<string, unknown>;
  if (next.id !== node.id) return `the id stays "${node.id}" (rename by copying the node)`;
  if (next.type !== node.type) return `the type stays "${node.type}" (add a new node instead)`;
  const position = next.position as { x?: unknown; y?: unknown } | undefined;
  if (typeof position?.x !== 'number' || typeof position.y !== 'number') {
    return 'position needs numbers x and y';
  }
  if (!next.data || typeof next.data !== 'object' || Array.isArray(next.data)) {
    return 'data must be an object';
  }
  if (next.parentId !== undefined) {
    const nodes = useEditor.getState().nodes;
    const parent = nodes.find((n) => n.id === next.parentId);
    if (typeof next.parentId !== 'string' || !parent)
      return `parentId: no node "${String(next.parentId)}"`;
    if (!isContainer(parent.type)) return `parentId: "${parent.id}" is not a group or mindstorm`;
    for (let p: FlowNode | undefined = parent; p; p = nodes.find((n) => n.id === p?.parentId)) {
      if (p.id === node.id) return 'parentId: a node cannot sit inside itself';
    }
  }
  const { id: _id, ...rest } = next;
  replaceNode(node.id, rest as Omit<FlowNode, 'id'>);
  return null;
}

function DocumentTab() {
  const { name, description, models, settings, params } = useEditor(
    useShallow((s) => ({
      name: s.meta.name,
      description: s.meta.description,
      models: s.meta.models,
      settings: s.meta.settings,
      params: s.meta.params,
    })),
  );

  // Models and settings are checked as part of the whole document, so errors read the same as
  // they do on the command line (`models.fast.model: ...`).
  const applyPart = (key: 'models' | 'settings' | 'params', value: unknown) => {
    const doc: Record<string, unknown> = { ...currentDocument() };
    if (value === undefined) delete doc[key];
    else doc[key] = value;
    const result = readDocument(doc);
    if (!result.ok) {
      const mine = result.problems.filter((p) => p.path.startsWith(key));
      return (mine.length ? mine : result.problems).map(formatProblem);
    }
    updateMeta({ [key]: result.doc[key] });
    return null;
  };

  return (
    <div className="document-tab" data-testid="inspector-document">
      <div className="field">
        <label htmlFor="doc-name">name</label>
        <input
          id="doc-name"
          type="text"
          data-testid="doc-name"
          value={name}
          onChange={(e) => updateMeta({ name: e.target.value }, 'doc:name')}
        />
        {name.trim() === '' ? <div className="field-problem">a document needs a name</div> : null}
      </div>
      <div className="field">
        <label htmlFor="doc-description">description</label>
        <textarea
          id="doc-description"
          rows={4}
          data-testid="doc-description"
          value={description ?? ''}
          onChange={(e) =>
            updateMeta(
              { description: e.target.value === '' ? undefined : e.target.value },
              'doc:description',
            )
          }
        />
      </div>
      <JsonEditor
        label="models (profile name → provider and model; never a key)"
        value={models ?? {}}
        testId="doc-models"
        onApply={(v) => applyPart('models', v)}
      />
      <JsonEditor
        label="settings (concurrency, budget, retry, timeoutMs, seed)"
        value={settings ?? {}}
        testId="doc-settings"
        onApply={(v) => applyPart('settings', v)}
      />
      <JsonEditor
        label="params (template parameters: name → type, default, min/max, values, description)"
        value={params ?? {}}
        testId="doc-params"
        onApply={(v) =>
          applyPart('params', v && typeof v === 'object' && Object.keys(v).length ? v : undefined)
        }
      />
      <Lazy summary="Whole document (raw JSON)">
        <WholeDocument />
      </Lazy>
    </div>
  );
}

function WholeDocument() {
  const nodes = useEditor((s) => s.nodes);
  const edges = useEditor((s) => s.edges);
  const meta = useEditor((s) => s.meta);
  const path = useEditor((s) => s.path);
  const root = useEditor((s) => s.root);
  const whole = useMemo(
    () => toDocument({ meta, nodes, edges, path, root }),
    [meta, nodes, edges, path, root],
  );
  return (
    <JsonEditor
      label="The document as it will be saved"
      value={whole}
      testId="doc-json"
      rows={20}
      onApply={(_parsed, text) => {
        const result = readDocument(text);
        if (!result.ok) return result.problems.map(formatProblem);
        replaceDocument(result.doc);
        return null;
      }}
    />
  );
}
