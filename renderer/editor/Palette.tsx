import { useReactFlow } from '@xyflow/react';
import { type DragEvent, useMemo, useState } from 'react';
import type { NodeSpec } from '../../app/node-sdk/define.ts';
import { matchesQuery } from '../help/search.ts';
import { containerAt, freeSpot } from '../model/document.ts';
import { GROUP_ORDER, SPECS } from '../model/registry.ts';
import { addNode, useEditor } from '../store.ts';
import { PALETTE_MIME } from './Canvas.tsx';

/** Every node type, grouped as the specs say; drag one onto the canvas or press it to add. */
export function Palette() {
  const [query, setQuery] = useState('');
  const { screenToFlowPosition } = useReactFlow();
  const groups = useMemo(() => {
    const matches = [...SPECS.values()].filter((s) =>
      matchesQuery(query, [s.type, s.title, s.description]),
    );
    const names = [
      ...GROUP_ORDER,
      ...new Set(matches.map((s) => s.group).filter((g) => !GROUP_ORDER.includes(g))),
    ];
    return names
      .map((group) => ({ group, specs: matches.filter((s) => s.group === group) }))
      .filter((g) => g.specs.length > 0);
  }, [query]);

  const onDragStart = (event: DragEvent, spec: NodeSpec<unknown>) => {
    event.dataTransfer.setData(PALETTE_MIME, spec.type);
    event.dataTransfer.effectAllowed = 'copy';
  };

  // Pressing an entry (mouse or keyboard) adds the node in the middle of the visible canvas.
  const addAtCenter = (type: string) => {
    const pane = document.querySelector('.canvas')?.getBoundingClientRect();
    const center = pane
      ? { x: pane.left + pane.width / 2, y: pane.top + pane.height / 2 }
      : { x: innerWidth / 2, y: innerHeight / 2 };
    const at = screenToFlowPosition(center);
    const { nodes } = useEditor.getState();
    const position = freeSpot({ x: at.x - 110, y: at.y - 60 }, nodes);
    addNode(type, position, containerAt(position, nodes));
  };

  return (
    <aside className="palette" aria-label="Node palette">
      <input
        type="search"
        className="palette-search"
        placeholder="Search nodes"
        aria-label="Search nodes"
        data-testid="palette-search"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {groups.map(({ group, specs }) => (
        <section key={group} className="palette-group">
          <h3>{group}</h3>
          {specs.map((spec) => (
            <button
              type="button"
              key={spec.type}
              className={`palette-item group-${spec.group}`}
              data-testid={`palette-${spec.type}`}
              draggable
              onDragStart={(e) => onDragStart(e, spec)}
              onClick={() => addAtCenter(spec.type)}
              title={`${spec.description}\n\nDrag onto the canvas, or press to add.`}
            >
              <span className="palette-title">{spec.title}</span>
              <span className="palette-description">{spec.description}</span>
            </button>
          ))}
        </section>
      ))}
      {groups.length === 0 ? <p className="muted">No node type matches “{query}”.</p> : null}
    </aside>
  );
}
