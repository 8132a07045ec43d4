import { useEffect } from 'react';
import {
  applyTabsHeight,
  clampTabsHeight,
  rememberedTabsHeight,
  rememberTabsHeight,
} from './panelSize.ts';

/** The run panel's tab area (tab strip and body), whose height the handle sets. */
function tabsOf(el: HTMLElement): HTMLElement | null {
  return el.closest('.run-panel')?.querySelector<HTMLElement>('.run-split') ?? null;
}

function setHeight(el: HTMLElement, px: number, remember: boolean) {
  const app = el.closest('.app') as HTMLElement | null;
  if (!app) return;
  const h = clampTabsHeight(px, window.innerHeight);
  applyTabsHeight(app, h);
  if (remember) rememberTabsHeight(h);
}

const currentHeight = (el: HTMLElement) => tabsOf(el)?.getBoundingClientRect().height ?? 240;

/**
 * The run panel's top edge: drag it (or use the arrow keys) to give the tabs more room; a double
 * click switches between the usual height and most of the window. The size is remembered.
 */
export function PanelResizer() {
  // The size the user gave the panel last time, within what this window can give.
  useEffect(() => {
    const app = document.querySelector<HTMLElement>('.app');
    const remembered = rememberedTabsHeight();
    if (!app || remembered === null) return;
    const apply = () => applyTabsHeight(app, clampTabsHeight(remembered, window.innerHeight));
    apply();
    window.addEventListener('resize', apply);
    return () => window.removeEventListener('resize', apply);
  }, []);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a draggable splitter, not a thematic break
    <div
      className="run-resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the run panel"
      aria-valuenow={0}
      tabIndex={0}
      title="Drag to resize the run panel; double-click to enlarge it"
      data-testid="run-panel-resize"
      onPointerDown={(e) => {
        const handle = e.currentTarget;
        handle.setPointerCapture(e.pointerId);
        // The run bar above the tabs keeps its height: the pointer sets the panel's top edge.
        const panel = handle.closest('.run-panel')?.getBoundingClientRect().height ?? 0;
        const above = panel - currentHeight(handle);
        let last: number | null = null;
        const move = (ev: PointerEvent) => {
          last = window.innerHeight - ev.clientY - above;
          setHeight(handle, last, false);
        };
        const up = () => {
          handle.removeEventListener('pointermove', move);
          handle.removeEventListener('pointerup', up);
          if (last !== null) setHeight(handle, last, true);
        };
        handle.addEventListener('pointermove', move);
        handle.addEventListener('pointerup', up);
      }}
      onDoubleClick={(e) => {
        const el = e.currentTarget;
        const tall = window.innerHeight * 0.55;
        setHeight(el, currentHeight(el) < tall - 20 ? tall : 0, true);
      }}
      onKeyDown={(e) => {
        const step = e.key === 'ArrowUp' ? 40 : e.key === 'ArrowDown' ? -40 : 0;
        if (!step) return;
        e.preventDefault();
        setHeight(e.currentTarget, currentHeight(e.currentTarget) + step, true);
      }}
    />
  );
}
