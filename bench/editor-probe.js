/**
 * Injected by bench/editor.ts into the editor page and into the plain React Flow peer before
 * their own scripts run (Playwright's addInitScript, which the pages' CSP does not apply to).
 * It only reads the DOM and counts animation frames; the pages know nothing of it.
 * Plain JavaScript because it runs in the page, outside the Node project's type settings.
 */
(() => {
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const nodeElements = () => document.querySelectorAll('.react-flow__node');
  const viewport = () => document.querySelector('.react-flow__viewport');

  /** `translate(Xpx, Ypx) scale(S)` → { x, y, zoom }. */
  function transform() {
    const text = viewport()?.style.transform ?? '';
    const numbers = (text.match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map(Number);
    return { x: numbers[0] ?? 0, y: numbers[1] ?? 0, zoom: numbers[2] ?? 1, text };
  }

  let frames = null;

  window.__bench = {
    /**
     * Clicks `selector` (the open action) and follows the page frame by frame until `n` node
     * elements are in the DOM, then until all of them are visible (React Flow hides a node until
     * it has measured it), then until the view has been framed (the transform changed from
     * what it was at the click and stayed put for a few frames). Times in ms from the click.
     */
    async load(selector, n, timeoutMs) {
      const button = document.querySelector(selector);
      if (!button) throw new Error(`nothing matches ${selector}`);
      const before = transform().text;
      const start = performance.now();
      button.click();
      let domMs;
      let visibleMs;
      let framedMs;
      let last = before;
      let stable = 0;
      while (performance.now() - start < timeoutMs) {
        await nextFrame();
        const t = performance.now() - start;
        const list = nodeElements();
        if (domMs === undefined && list.length >= n) domMs = t;
        if (domMs !== undefined && visibleMs === undefined) {
          let hidden = 0;
          for (const el of list) if (el.style.visibility === 'hidden') hidden++;
          if (hidden === 0) visibleMs = t;
        }
        if (visibleMs !== undefined) {
          const now = transform().text;
          if (now !== last) {
            last = now;
            stable = 0;
            framedMs = t;
          } else if (++stable >= 5) {
            return { domMs, visibleMs, framedMs: framedMs ?? visibleMs };
          }
        }
      }
      return { domMs, visibleMs, framedMs, timedOut: true, count: nodeElements().length };
    },

    /** Node and edge elements in the DOM, and how many nodes intersect the pane. */
    counts() {
      const pane = document.querySelector('.react-flow__pane')?.getBoundingClientRect();
      let inView = 0;
      const list = nodeElements();
      if (pane) {
        for (const el of list) {
          const r = el.getBoundingClientRect();
          if (
            r.right > pane.left &&
            r.left < pane.right &&
            r.bottom > pane.top &&
            r.top < pane.bottom
          )
            inView++;
        }
      }
      return {
        nodes: list.length,
        edges: document.querySelectorAll('.react-flow__edge').length,
        inView,
        zoom: transform().zoom,
        pane: pane ? { width: Math.round(pane.width), height: Math.round(pane.height) } : null,
      };
    },

    transform,

    /** Resolves once the view has not moved for `quietFrames` frames. */
    async settle(quietFrames = 10, timeoutMs = 5000) {
      const start = performance.now();
      let last = transform().text;
      let quiet = 0;
      while (quiet < quietFrames && performance.now() - start < timeoutMs) {
        await nextFrame();
        const now = transform().text;
        quiet = now === last ? quiet + 1 : 0;
        last = now;
      }
      return transform();
    },

    /**
     * A point of the empty pane (no node, edge, handle or panel under it), as near the middle
     * as possible: pressing there and dragging pans, as it does for a user.
     */
    panePoint() {
      const pane = document.querySelector('.react-flow__pane');
      if (!pane) throw new Error('no .react-flow__pane');
      const r = pane.getBoundingClientRect();
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      for (let radius = 0; radius < Math.min(r.width, r.height) / 2; radius += 3) {
        for (let a = 0; a < 24; a++) {
          const x = Math.round(cx + radius * Math.cos((a / 24) * 2 * Math.PI));
          const y = Math.round(cy + radius * Math.sin((a / 24) * 2 * Math.PI));
          if (document.elementFromPoint(x, y) === pane) return { x, y };
        }
      }
      throw new Error('no empty spot on the pane');
    },

    /**
     * Starts recording every animation frame's timestamp, the frames in which the view had
     * moved since the frame before (what someone panning sees as motion), and every change of
     * the viewport's transform (each pan step React Flow applied, several per frame at times).
     */
    startFrames() {
      const times = [];
      const moved = [];
      let changes = 0;
      let on = true;
      let last = transform().text;
      const observer = new MutationObserver(() => changes++);
      const el = viewport();
      if (el) observer.observe(el, { attributes: true, attributeFilter: ['style'] });
      const tick = (t) => {
        if (!on) return;
        times.push(t);
        const now = transform().text;
        if (now !== last) moved.push(t);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      frames = () => {
        on = false;
        observer.disconnect();
        return { times, moved, viewportChanges: changes };
      };
    },

    stopFrames() {
      if (!frames) throw new Error('startFrames first');
      const result = frames();
      frames = null;
      return result;
    },
  };
})();
