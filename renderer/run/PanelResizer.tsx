import { useEffect, useState } from 'react';
import { keyLabel, shortcutOf } from '../help/shortcuts.ts';
import { useEditor } from '../store.ts';
import {
  applyPanel,
  clampTabsHeight,
  MIN_TABS_HEIGHT,
  mostTabsHeight,
  type PanelMode,
  panelMode,
  rememberTabsHeight,
  setPanelMode,
  tabsHeightFor,
  usePanelMode,
} from './panelSize.ts';
import './splitter.css';

const STEP = 40;

/** Shows or hides the run panel (Ctrl/Cmd+J, and the splitter's button). */
export function toggleRunPanel(): void {
  setPanelMode(panelMode() === 'collapsed' ? 'normal' : 'collapsed');
}

/**
 * The splitter between the canvas and the run panel: drag it (or focus it and use the arrow
 * keys, Home and End) to give the tabs more room or less; Enter or the button hides the panel
 * so the canvas gets the full height, and shows it again; Maximize gives the tabs all but a
 * strip of canvas (a double click does too). The size and the mode are remembered.
 */
export function PanelResizer() {
  const mode = usePanelMode();
  const [height, setHeight] = useState(() => tabsHeightFor(mode, window.innerHeight));

  // The mode and the size on the app, again whenever the window changes size.
  useEffect(() => {
    const app = document.querySelector<HTMLElement>('.app');
    if (!app) return;
    const apply = () => {
      const px = tabsHeightFor(mode, window.innerHeight);
      applyPanel(app, mode, px);
      setHeight(px);
    };
    apply();
    window.addEventListener('resize', apply);
    return () => window.removeEventListener('resize', apply);
  }, [mode]);

  // A run that stops at a breakpoint wants the person's eyes: a hidden panel shows again.
  const status = useEditor((s) => s.run.status);
  useEffect(() => {
    if (status === 'paused' && panelMode() === 'collapsed') setPanelMode('normal');
  }, [status]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcutOf(e) !== 'run-panel') return;
      e.preventDefault();
      toggleRunPanel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  /** A height the user chose: the panel shows at it, and it is remembered when `remember`. */
  const resize = (px: number, remember: boolean) => {
    const app = document.querySelector<HTMLElement>('.app');
    if (!app) return;
    const h = clampTabsHeight(px, window.innerHeight);
    applyPanel(app, 'normal', h);
    setHeight(h);
    if (remember) {
      rememberTabsHeight(h);
      setPanelMode('normal');
    }
  };
  const collapsed = mode === 'collapsed';
  const most = mostTabsHeight(window.innerHeight);
  const setMode = (next: PanelMode) => setPanelMode(mode === next ? 'normal' : next);
  return (
    <div className="run-splitter">
      {/* biome-ignore lint/a11y/useSemanticElements: a draggable splitter, not a thematic break */}
      <div
        className="run-resize"
        role="separator"
        aria-orientation="horizontal"
        aria-label="Resize the run panel"
        aria-valuemin={0}
        aria-valuemax={most}
        aria-valuenow={collapsed ? 0 : height}
        aria-valuetext={collapsed ? 'hidden' : `${height} pixels`}
        tabIndex={0}
        title="Drag to resize the run panel (arrow keys when focused; Enter hides it); double-click to maximize"
        data-testid="run-panel-resize"
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          const handle = e.currentTarget;
          handle.setPointerCapture(e.pointerId);
          // The tabs grow by as much as the pointer moves up (from nothing when hidden).
          const startY = e.clientY;
          const start = collapsed ? 0 : height;
          let last: number | null = null;
          const move = (ev: PointerEvent) => {
            last = start + startY - ev.clientY;
            resize(last, false);
          };
          const up = () => {
            handle.removeEventListener('pointermove', move);
            handle.removeEventListener('pointerup', up);
            if (last !== null) resize(last, true);
          };
          handle.addEventListener('pointermove', move);
          handle.addEventListener('pointerup', up);
        }}
        onDoubleClick={() => setMode('maximized')}
        onKeyDown={(e) => {
          const current = collapsed ? MIN_TABS_HEIGHT - STEP : height;
          const to =
            e.key === 'ArrowUp'
              ? current + STEP
              : e.key === 'ArrowDown'
                ? current - STEP
                : e.key === 'Home'
                  ? MIN_TABS_HEIGHT
                  : e.key === 'End'
                    ? most
                    : null;
          if (e.key === 'Enter') {
            e.preventDefault();
            toggleRunPanel();
          } else if (to !== null) {
            e.preventDefault();
            if (e.key === 'ArrowDown' && !collapsed && height <= MIN_TABS_HEIGHT) {
              setPanelMode('collapsed');
            } else resize(to, true);
          }
        }}
      >
        <span className="run-resize-grip" />
      </div>
      <div className="run-splitter-actions">
        {collapsed ? null : (
          <button
            type="button"
            className="run-splitter-button"
            data-testid="run-panel-maximize"
            aria-pressed={mode === 'maximized'}
            title={
              mode === 'maximized'
                ? 'Give the run panel its usual height back'
                : 'Give the run panel all but a strip of the canvas'
            }
            onClick={() => setMode('maximized')}
          >
            {mode === 'maximized' ? 'Restore' : 'Maximize'}
          </button>
        )}
        <button
          type="button"
          className="run-splitter-button"
          data-testid="run-panel-collapse"
          aria-expanded={!collapsed}
          title={`${collapsed ? 'Show' : 'Hide'} the run panel (${keyLabel('Mod+J')})`}
          onClick={toggleRunPanel}
        >
          {collapsed ? '▴ Show run panel' : '▾ Hide'}
        </button>
      </div>
    </div>
  );
}
