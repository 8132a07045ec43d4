/** The editor benchmark's report (bench/editor.ts): one table of figures, ours against the peer. */
import type { ArtistCriticResult, EditorBenchResult, EditorSizeResult } from './editor.ts';
import type { PageFigures, PanFigures } from './editor-measure.ts';
import type { RendererBuild } from './editor-setup.ts';
import { pad } from './support.ts';

const ratio = (ours: number, peer: number) => `${(ours / peer).toFixed(1)}×`;
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const pct = (share: number) => `${Math.round(share * 100)}%`;
const minute = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ');

function rendererLine(b: RendererBuild): string {
  switch (b.origin) {
    case 'dist':
      return `dist/renderer of ${minute(b.builtAt)}, made from the current sources`;
    case 'built':
      return 'dist/renderer, built now from the current sources';
    case 'fresh':
      return 'this checkout, built now';
    case 'given':
      return `${b.dir} of ${minute(b.builtAt)}`;
    default:
      return b.origin satisfies never;
  }
}

/** The Artist–Critic's open time: the figure the editor aims to keep under a second. */
function artistCriticLines(a: ArtistCriticResult): string[] {
  const what =
    a.source === 'template'
      ? 'templates/nlsom-artist-critic.society.json'
      : 'a generated document of its shape (the template is not in this checkout)';
  const head = `  Artist–Critic, ${what}: ${a.nodes} nodes, ${a.edges} edges, ${a.drawn} cards drawn`;
  if (a.timedOut) return [head, '  open: did not show every card in time'];
  return [
    head,
    `  open (click → every card shown): ${whole(a.load.visibleMs)} ms` +
      ` (in DOM ${whole(a.load.domMs)}, framed ${whole(a.load.framedMs)} ms); aim < 1,000 ms`,
  ];
}

/** Pan at least twice plain React Flow's frame rate, load in at most half its time (issue 31). */
const AIM = { pan: 2, load: 0.5 };

/** The largest document's figures against their aims, each said met or not. */
function aimLines(sizes: EditorSizeResult[]): string[] {
  const s = sizes.at(-1);
  if (!s || s.ours.timedOut || s.peer.timedOut) return [];
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const pan = (label: string, key: 'atWorkingZoom' | 'atFit') => {
    const r = s.ours[key].fps / s.peer[key].fps;
    return `pan ${label} ${r.toFixed(1)}× the peer's fps (aim ≥ ${AIM.pan}×: ${verdict(r >= AIM.pan)})`;
  };
  const load = s.ours.load.visibleMs / s.peer.load.visibleMs;
  return [
    `  aims at ${whole(s.nodes)} nodes: ${pan('@fit', 'atFit')}; ${pan('@100%', 'atWorkingZoom')};`,
    `    load ${load.toFixed(2)}× the peer's time (aim ≤ ${AIM.load}×: ${verdict(load <= AIM.load)})`,
  ];
}

/** The benchmark's result as lines of text. */
export function formatEditor(r: EditorBenchResult): string[] {
  if ('skipped' in r) return [`Editor canvas: skipped: ${r.skipped}`];
  const gpu = r.flags.includes('--disable-gpu') ? '--disable-gpu' : 'GPU allowed';
  const lines = [
    `Editor canvas: the studio's editor (ours) vs plain React Flow with default nodes (peer), same graph`,
    `  headless ${r.browser}, ${gpu}; window ${r.window.width}×${r.window.height}, canvas ` +
      `${r.canvas.width}×${r.canvas.height}; median of ${r.trials}; renderer: ${rendererLine(r.renderer)}`,
    '  load: click on the file in Open… → the view framed and every node whose top left corner is in it',
    '    shown with its handles, five frames in a row (both pages; the peer shows every node at once)',
    `  pan: ${r.panMs / 1000} s mouse drag on the pane; fps = frames in which the view moved, p95 = time between them`,
    '',
    `  ${pad('nodes', 7)}${pad('edges', 7)}${pad('in DOM', 11)}${pad('load ours / peer', 27)}` +
      `${pad('pan @100%: fps, p95 ms', 28)}${pad('pan @fit: fps, p95 ms', 28)}in view @fit`,
  ];
  const pan = (a: PanFigures, b: PanFigures) =>
    `${a.fps.toFixed(0)} / ${b.fps.toFixed(0)} (${ratio(a.fps, b.fps)}), ` +
    `${a.p95FrameMs.toFixed(0)} / ${b.p95FrameMs.toFixed(0)}`;
  const load = (f: PageFigures) =>
    f.timedOut ? `> ${whole(f.timedOut.afterMs / 1000)} s` : `${whole(f.load.visibleMs)}`;
  for (const s of r.sizes) {
    const o = s.ours;
    const p = s.peer;
    const stuck = o.timedOut ?? p.timedOut;
    lines.push(
      `  ${pad(whole(s.nodes), 7)}${pad(whole(s.edges), 7)}${pad(`${Number.isNaN(o.renderedNodes) ? '?' : o.renderedNodes}/${s.nodes}`, 11)}` +
        pad(
          `${load(o)} / ${load(p)} ms` +
            (stuck ? '' : ` (${ratio(o.load.visibleMs, p.load.visibleMs)})`),
          27,
        ) +
        (stuck
          ? 'not measured: a page did not show every node in time'
          : pad(pan(o.atWorkingZoom, p.atWorkingZoom), 28) +
            pad(pan(o.atFit, p.atFit), 28) +
            `${o.atFit.inView} at ${Math.round(o.atFit.zoom * 100)}%`),
    );
  }
  lines.push(
    '',
    '  details, ours | peer: load phases; panning @100% and @fit: all frames/s, main thread busy (js, style, layout)',
  );
  const details = (f: PageFigures) => {
    if (f.timedOut) {
      const after = whole(f.timedOut.afterMs / 1000);
      return f.timedOut.inDom === undefined
        ? `the page was still busy after ${after} s and did not answer`
        : `${f.timedOut.inDom} nodes in the DOM after ${after} s, not all shown`;
    }
    const busy = (a: PanFigures) =>
      `${a.rafFps.toFixed(0)} f/s, busy ${pct(a.busy.task)} (${pct(a.busy.script)}, ` +
      `${pct(a.busy.style)}, ${pct(a.busy.layout)})`;
    return (
      `framed ${whole(f.load.framedMs)} ms, ${whole(f.load.inView ?? Number.NaN)} nodes in view; ` +
      `@${Math.round(f.atWorkingZoom.zoom * 100)}% ${busy(f.atWorkingZoom)}; @fit ${busy(f.atFit)}`
    );
  };
  for (const s of r.sizes) {
    lines.push(`  ${pad(whole(s.nodes), 7)}ours ${details(s.ours)}`);
    lines.push(`  ${pad('', 7)}peer ${details(s.peer)}`);
  }
  const aims = aimLines(r.sizes);
  if (aims.length) lines.push('', ...aims);
  if (r.artistCritic) lines.push('', ...artistCriticLines(r.artistCritic));
  return lines;
}
