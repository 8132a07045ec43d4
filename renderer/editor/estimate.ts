/**
 * A card's size and handle places before React Flow has measured it, worked out from its
 * spec's ports and its title the way styles.css lays a card out. React Flow renders (to
 * measure) every node it knows neither, even with onlyRenderVisibleElements; given these it
 * can leave the cards out of view out of the page from the very first render. Once a card is
 * in view React Flow measures it, and the measured size and handles replace the estimate, so
 * edges attach to where the ports really are (React Flow's "node dimensions" and `handles`,
 * meant for rendering on a server).
 */
import { type NodeHandle, Position } from '@xyflow/react';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, specPorts } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import { viewOf } from './nodeViews.ts';

/** styles.css, .society-node and its rows, in pixels. */
const CARD = {
  width: 220,
  /** Border and top padding, the header row. */
  top: 1 + 6 + 13,
  /** The title's padding and one line of it. */
  titlePad: 2,
  titleLine: 15,
  /** The title's width inside the card's padding and border. */
  titleWidth: 220 - 2 - 16,
  summary: 13,
  /** The port list's margin, border and padding above its first row. */
  portsTop: 6 + 1 + 3,
  row: 20,
  /** Bottom padding and border. */
  bottom: 4 + 1,
  handle: 10,
} as const;

/** The card's title font (styles.css: the body's font, 13 px, bold for the label). */
let measure: { context: CanvasRenderingContext2D; family: string } | null | undefined;
function textWidth(text: string, bold: boolean): number {
  if (measure === undefined) {
    // Read once: asking for a computed style per word could make the browser restyle the page.
    const context =
      typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    const family = context ? getComputedStyle(document.body).fontFamily : '';
    measure = context ? { context, family: family || 'system-ui, sans-serif' } : null;
  }
  if (!measure) return text.length * 7.5;
  const font = `${bold ? 600 : 400} 13px ${measure.family}`;
  if (measure.context.font !== font) measure.context.font = font;
  return measure.context.measureText(text).width;
}

/** How many lines the title (the label, then the id in normal weight) wraps to. */
function titleLines(label: string, id: string): number {
  const words = [
    ...label.split(/\s+/).map((w) => ({ w, bold: true })),
    ...(label !== id ? [{ w: id, bold: false }] : []),
  ].filter((x) => x.w);
  const space = textWidth(' ', true);
  let lines = 1;
  let x = 0;
  for (const [i, { w, bold }] of words.entries()) {
    // The id follows the label after a 6 px margin.
    const gap = i === 0 ? 0 : !bold && words[i - 1]?.bold ? 6 : space;
    const width = textWidth(w, bold);
    if (x > 0 && x + gap + width > CARD.titleWidth) {
      lines++;
      x = 0;
    }
    // A word longer than the line breaks anywhere (overflow-wrap: anywhere).
    const over = Math.floor((x + (x ? gap : 0) + width) / CARD.titleWidth);
    lines += over;
    x = (x + (x ? gap : 0) + width) % CARD.titleWidth;
  }
  return lines;
}

/** Whether a node is drawn as a plain card this module can size: not a container, no own view. */
function estimable(node: FlowNode): boolean {
  const spec = specOf(node.type);
  if (!spec || (spec.container && !spec.subgraph)) return false;
  return !viewOf(node.type)?.card;
}

/** A card's estimated size and handles (relative to its top left corner). */
export function cardEstimate(
  node: FlowNode,
): { width: number; height: number; handles: NodeHandle[] } | undefined {
  if (!estimable(node)) return undefined;
  const { inputs, outputs } = specPorts(node);
  const label = typeof node.data.label === 'string' && node.data.label ? node.data.label : node.id;
  const summary = (() => {
    const parsed = parseNodeData(node.type, node.data);
    try {
      return parsed.ok && Boolean(specOf(node.type)?.summary?.(parsed.data));
    } catch {
      return false;
    }
  })();
  const rows = inputs.length + outputs.length;
  const height =
    CARD.top +
    CARD.titlePad +
    CARD.titleLine * titleLines(label, node.id) +
    (summary ? CARD.summary : 0) +
    (rows ? CARD.portsTop + rows * CARD.row : 0) +
    CARD.bottom;
  // Rows are listed inputs first; each handle sits on its row's middle, across the border.
  const firstRow = height - CARD.bottom - rows * CARD.row;
  const half = CARD.handle / 2;
  const handles: NodeHandle[] = [...inputs, ...outputs].map((port, i) => {
    const input = i < inputs.length;
    return {
      id: port.name,
      type: input ? 'target' : 'source',
      position: input ? Position.Left : Position.Right,
      x: input ? 1 - half : CARD.width - 1 - half,
      y: firstRow + i * CARD.row + CARD.row / 2 - half,
      width: CARD.handle,
      height: CARD.handle,
    };
  });
  return { width: CARD.width, height, handles };
}

const estimated = new WeakMap<FlowNode, FlowNode>();

/**
 * The node as React Flow gets it: until it has been measured, with its estimated size
 * (`initialWidth`, `initialHeight`) and handles, so it is drawn only when in view; once
 * measured, unchanged (React Flow keeps the measured handles). One copy per node object.
 */
export function estimatedNode(node: FlowNode): FlowNode {
  if (node.hidden || (node.measured?.width && node.measured.height)) return node;
  if (node.width && node.height) return node;
  let copy = estimated.get(node);
  if (!copy) {
    const estimate = cardEstimate(node);
    copy = estimate
      ? {
          ...node,
          initialWidth: estimate.width,
          initialHeight: estimate.height,
          handles: estimate.handles,
        }
      : node;
    estimated.set(node, copy);
  }
  return copy;
}

/** Whether React Flow knows a size for the node: measured, given, or estimated. */
export function hasSize(node: FlowNode): boolean {
  if ((node.measured?.width ?? node.width) && (node.measured?.height ?? node.height)) return true;
  return estimatedNode(node) !== node;
}
