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
  let lastInView = 0;

  /**
   * Whether every node whose top left corner is inside the pane at transform `t` is in the
   * page, visible and has its handles.
   */
  function everyInViewShown(points, list, t) {
    const pane = document.querySelector('.react-flow__pane')?.getBoundingClientRect();
    if (!pane) return false;
    const byId = new Map();
    for (const el of list) byId.set(el.getAttribute('data-id'), el);
    let count = 0;
    for (const p of points) {
      const x = t.x + p.x * t.zoom;
      const y = t.y + p.y * t.zoom;
      if (x < 0 || y < 0 || x >= pane.width || y >= pane.height) continue;
      count++;
      const el = byId.get(p.id);
      if (!el || el.style.visibility === 'hidden') return false;
      if (!el.querySelector('.react-flow__handle')) return false;
    }
    lastInView = count;
    return count > 0;
  }

  window.__bench = {
    /**
     * Clicks `selector` (the open action) and follows the page frame by frame. `expect` is
     * either a number n: until n node elements are in the DOM, then until all of them are
     * visible (React Flow hides a node until it knows its size); or the document's nodes as
     * { id, x, y } (x, y: the node's top left corner in flow coordinates): until the view has
     * been framed (the transform changed from what it was at the click) and every node whose
     * top left corner lies in the pane at that transform has its element in the page, visible,
     * with its handles (what someone opening the document sees and can wire). Either way the
     * time is that of the first frame from which that held, and the view stayed put, for five
     * frames in a row (the page kept answering). Times in ms from the click.
     */
    async load(selector, expect, timeoutMs) {
      const button = document.querySelector(selector);
      if (!button) throw new Error(`nothing matches ${selector}`);
      const before = transform().text;
      const start = performance.now();
      button.click();
      let domMs;
      let readyMs;
      let framedMs;
      let last = before;
      let stable = 0;
      let inView = 0;
      while (performance.now() - start < timeoutMs) {
        await nextFrame();
        const t = performance.now() - start;
        const list = nodeElements();
        const now = transform();
        if (now.text !== last) {
          last = now.text;
          framedMs = t;
          stable = 0;
          readyMs = undefined;
        }
        let ready;
        if (typeof expect === 'number') {
          if (domMs === undefined && list.length >= expect) domMs = t;
          ready = domMs !== undefined && [...list].every((el) => el.style.visibility !== 'hidden');
        } else {
          ready = now.text !== before && everyInViewShown(expect, list, now);
          if (ready) inView = lastInView;
        }
        if (!ready) {
          stable = 0;
          readyMs = undefined;
          continue;
        }
        readyMs ??= t;
        domMs ??= t;
        if (++stable >= 5) {
          return { domMs, visibleMs: readyMs, framedMs: framedMs ?? readyMs, inView };
        }
      }
      return { domMs, visibleMs: readyMs, framedMs, timedOut: true, count: nodeElements().length };
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
