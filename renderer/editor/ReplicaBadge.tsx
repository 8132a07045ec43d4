import { memo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useEditor } from '../store.ts';

/**
 * A replicated node or group is drawn once, with a ×N badge. Clicking the badge lists its
 * copies — the item each one runs for and, during a run, where each copy is — without
 * putting N nodes on the canvas.
 */
function ReplicaBadgeView({ id, items, as }: { id: string; items: unknown[]; as: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="badge badge-replicate nodrag"
        data-testid={`replicas-${id}`}
        aria-expanded={open}
        title={`one copy per item, each sees {{ ${as} }}; click to ${open ? 'hide' : 'list'} them`}
        onClick={(e) => {
          e.stopPropagation();
          setOpen(!open);
        }}
      >
        ×{items.length}
      </button>
      {open ? <ReplicaList id={id} items={items} as={as} /> : null}
    </>
  );
}

/** Which state a copy shows when its instances differ (a group's copy runs several). */
const RANK: Record<string, number> = { '': 0, done: 1, running: 2, failed: 3 };

/**
 * The copies, with each one's state in the current run: a replicated node's copy is its
 * instance (`critic#7`); a replicated group's copy is every instance inside it
 * (`artists#3/questioner@r2`), running while any of them runs.
 */
function ReplicaList({ id, items, as }: { id: string; items: unknown[]; as: string }) {
  const states = useEditor(
    useShallow((s) => {
      const latest: string[] = items.map(() => '');
      const copy = new RegExp(`(?:^|/)${escapeRegExp(id)}#(\\d+)(?:[/@]|$)`);
      for (const run of Object.values(s.run.instances)) {
        const index = Number(copy.exec(run.instance)?.[1]);
        if (!Number.isInteger(index) || index >= latest.length) continue;
        if (run.node === id || (RANK[run.state] ?? 0) > (RANK[latest[index]!] ?? 0))
          latest[index] = run.state;
      }
      return latest;
    }),
  );
  return (
    <ol
      className="replica-list nodrag nowheel"
      data-testid={`replica-list-${id}`}
      aria-label={`copies of ${id}, one per ${as}`}
    >
      {items.map((item, i) => (
        // Items may repeat; the index is the copy's identity (`${id}#${i}`).
        // biome-ignore lint/suspicious/noArrayIndexKey: a copy is its index
        <li key={i} className={states[i] ? `replica-${states[i]}` : ''}>
          <code>#{i}</code> {typeof item === 'string' ? item : JSON.stringify(item)}
          {states[i] ? <span className="replica-state">{states[i]}</span> : null}
        </li>
      ))}
    </ol>
  );
}

export const ReplicaBadge = memo(ReplicaBadgeView);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
