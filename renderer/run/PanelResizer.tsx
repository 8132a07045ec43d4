const MIN_PANEL = 120;

/**
 * The run panel's top edge: drag it (or use the arrow keys) to give the panels more room;
 * a double click switches between the usual height and most of the window.
 */
export function PanelResizer() {
  const setHeight = (el: HTMLElement, px: number) => {
    const app = el.closest('.app') as HTMLElement | null;
    const h = Math.round(Math.min(window.innerHeight - 160, Math.max(MIN_PANEL, px)));
    app?.style.setProperty('--run-panel-height', `${h}px`);
  };
  const current = (el: HTMLElement) =>
    (el.closest('.run-panel') as HTMLElement | null)?.getBoundingClientRect().height ?? 240;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a draggable splitter, not a thematic break
    <div
      className="run-resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the run panel"
      aria-valuenow={0}
      tabIndex={0}
      data-testid="run-panel-resize"
      onPointerDown={(e) => {
        const handle = e.currentTarget;
        handle.setPointerCapture(e.pointerId);
        const move = (ev: PointerEvent) => setHeight(handle, window.innerHeight - ev.clientY);
        const up = () => {
          handle.removeEventListener('pointermove', move);
          handle.removeEventListener('pointerup', up);
        };
        handle.addEventListener('pointermove', move);
        handle.addEventListener('pointerup', up);
      }}
      onDoubleClick={(e) => {
        const el = e.currentTarget;
        setHeight(el, current(el) < window.innerHeight * 0.45 ? window.innerHeight * 0.6 : 0);
      }}
      onKeyDown={(e) => {
        const step = e.key === 'ArrowUp' ? 40 : e.key === 'ArrowDown' ? -40 : 0;
        if (!step) return;
        e.preventDefault();
        setHeight(e.currentTarget, current(e.currentTarget) + step);
      }}
    />
  );
}
