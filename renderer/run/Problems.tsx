import { formatProblem } from '../../app/schema/problems.ts';
import { revealNode } from '../editor/library-actions.ts';
import { useEditor } from '../store.ts';

/** What keeps the document from compiling, each problem naming its node. */
export function Problems() {
  const problems = useEditor((s) => s.problems);
  if (problems === null) return <p className="muted">Checking the document…</p>;
  if (problems.length === 0) {
    return (
      <p className="ok" data-testid="problems-none">
        No problems: the document compiles.
      </p>
    );
  }
  return (
    <ul className="problems" data-testid="problems">
      {problems.map((p) => (
        <li key={`${p.path}:${p.message}`}>
          {p.node ? (
            <button type="button" className="link" onClick={() => revealNode(p.node!)}>
              {p.node}
            </button>
          ) : null}{' '}
          {formatProblem({ ...p, node: undefined })}
        </li>
      ))}
    </ul>
  );
}
