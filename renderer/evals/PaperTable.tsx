/**
 * The paper layout an eval was stored with (a table command's: `config.table`), as
 * `society eval-show` prints it: per cell the paper's figure, ours with its 95% interval and the
 * difference, in a monospace block so its columns line up as on a terminal.
 */
import type { ApiPaperTable } from '../../app/api/eval-comparison-contract.ts';
import './paper-table.css';

export function PaperTable({ table, evalId }: { table: ApiPaperTable; evalId: string }) {
  return (
    <section className="eval-paper-table" data-testid="eval-paper-table" data-kind={table.kind}>
      <h4>Paper table</h4>
      <p className="muted small">
        The paper's figures beside ours (with their 95% interval) and the difference, as{' '}
        <code>society eval-show {evalId}</code> prints them.
      </p>
      {table.text !== undefined ? (
        <pre className="eval-paper-text" data-testid="eval-paper-text">
          {table.text}
        </pre>
      ) : (
        <p className="errors">
          The layout {table.kind} could not be printed: {table.error ?? 'no text'}
        </p>
      )}
    </section>
  );
}
