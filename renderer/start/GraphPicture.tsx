import { useMemo } from 'react';
import { specOf } from '../model/registry.ts';
import { type PictureSource, pictureOf } from './picture.ts';

/**
 * A template's graph in miniature, drawn from its document (renderer/start/picture.ts): a box
 * per top-level node, coloured by its palette group, and the wires between them.
 */
export function GraphPicture({ doc, label }: { doc: PictureSource; label: string }) {
  const picture = useMemo(() => pictureOf(doc, (type) => specOf(type)?.group), [doc]);
  const { x, y, width, height } = picture.viewBox;
  return (
    <svg
      className="graph-picture"
      viewBox={`${x} ${y} ${width} ${height}`}
      preserveAspectRatio="xMidYMid meet"
      role="img"
      aria-label={`The graph of ${label}: ${picture.boxes.length} nodes`}
      data-testid="graph-picture"
    >
      {picture.lines.map((l) => (
        <path
          key={`${l.from}-${l.to}`}
          className="pic-wire"
          d={`M${l.x1},${l.y1} C${(l.x1 + l.x2) / 2},${l.y1} ${(l.x1 + l.x2) / 2},${l.y2} ${l.x2},${l.y2}`}
        />
      ))}
      {picture.boxes.map((b) => (
        <rect
          key={b.id}
          data-node={b.id}
          className={`pic-node pic-group-${b.group}${b.container ? ' pic-container' : ''}`}
          x={b.x}
          y={b.y}
          width={b.width}
          height={b.height}
          rx={12}
        />
      ))}
      {picture.inner.map((b) => (
        <rect
          key={b.id}
          className={`pic-member pic-group-${b.group}${b.container ? ' pic-container' : ''}`}
          x={b.x}
          y={b.y}
          width={b.width}
          height={b.height}
          rx={12}
        />
      ))}
    </svg>
  );
}
