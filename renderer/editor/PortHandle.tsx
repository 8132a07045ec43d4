import { Handle, Position } from '@xyflow/react';
import type { PortSpec } from '../../app/node-sdk/define.ts';
import { modalityLook } from '../model/ports.ts';

/** One port: a handle coloured by modality (a ring per list level) with its name beside it. */
export function PortRow({
  nodeId,
  port,
  side,
  footer = false,
  connectable = true,
}: {
  nodeId: string;
  port: PortSpec;
  side: 'in' | 'out';
  /**
   * Containers put their outputs in a strip along the bottom edge, below their members, with
   * the handles on the border: beside the members the names would be covered.
   */
  footer?: boolean;
  /** A collapsed card's handles only show where edges attach; open the card to draw edges. */
  connectable?: boolean;
}) {
  const look = modalityLook(port.modality);
  const details = [
    port.modality,
    port.required ? 'required' : undefined,
    port.multiple ? 'takes several edges' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <div
      className={`port port-${side}${footer ? ' port-footer' : ''}`}
      title={`${port.name}: ${details}${port.description ? ` — ${port.description}` : ''}`}
    >
      <Handle
        // A handle is a picture with a name (axe: aria-label needs a role).
        role="img"
        type={side === 'in' ? 'target' : 'source'}
        position={footer ? Position.Bottom : side === 'in' ? Position.Left : Position.Right}
        id={port.name}
        isConnectable={connectable}
        className={`handle mod-${look.base}${look.depth ? ` list list-${Math.min(look.depth, 2)}` : ''}${port.multiple ? ' multiple' : ''}`}
        data-testid={`handle-${nodeId}-${side}-${port.name}`}
        aria-label={`${side === 'in' ? 'input' : 'output'} ${port.name} (${port.modality})`}
      />
      <span className="port-name">
        {port.name}
        {port.required && side === 'in' ? <span className="port-required">*</span> : null}
      </span>
      <span className={`port-modality mod-text-${look.base}`}>{port.modality}</span>
    </div>
  );
}
