/**
 * End-to-end tests drive the real editor in Debian's Chromium (playwright-core, never a browser
 * download) against a real studio started in this process, with a temporary workspace and run
 * store. Without Chromium (a user's fresh clone) they skip with a message.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { NodeRegistry } from '../../app/node-sdk/registry.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { type Studio, startStudio } from '../../main/studio/server.ts';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from './chromium.ts';

export { CHROMIUM, HAVE_CHROMIUM };

if (!HAVE_CHROMIUM) {
  console.warn(
    `end-to-end tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}

/** Where the end-to-end run saves its screenshots. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/e2e/', import.meta.url));

/** The question templates/nlsom-vqa.cassette.json was recorded with (README.md). */
export const VQA_QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';

export interface StudioSession {
  studio: Studio;
  store: RunStore;
  dir: string;
  workspace: string;
  dbFile: string;
  browser: Browser;
  page: Page;
  /** Console errors and uncaught exceptions the page reported. */
  pageErrors: string[];
  /** Every URL the pages requested that is not on the studio's own origin (a CDN, say). */
  foreignRequests: string[];
  /**
   * Opens a fresh page on the studio (a reload, or a second window), in the empty editor as
   * "Build from scratch" opens it; with `startPage`, left on the start page a fresh studio shows.
   */
  newPage(options?: { startPage?: boolean }): Promise<Page>;
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

/** Starts a studio with its own workspace and run store, and a Chromium page on it. */
export async function openStudio(
  options: {
    env?: NodeJS.ProcessEnv;
    registry?: NodeRegistry;
    /** Stands in for the desktop app's native dialog (ApiHandlersOptions.confirm); none by default. */
    confirm?: (message: string) => Promise<boolean>;
  } = {},
): Promise<StudioSession> {
  // Built once per test run by tests/e2e/global-setup.ts.
  const rendererDir = inject('rendererDir');
  if (!rendererDir) throw new Error('the renderer was not built for the end-to-end tests');
  const dir = mkdtempSync(path.join(tmpdir(), 'society-e2e-'));
  const workspace = path.join(dir, 'workspace');
  const dbFile = path.join(dir, 'society.db');
  mkdirSync(workspace, { recursive: true });
  const store = openRunStore(dbFile);
  const studio = await startStudio({
    store,
    workspaceDir: workspace,
    rendererDir,
    // No keys from the machine running the tests.
    env: options.env ?? {},
    // Default: the built-in node types (tests/e2e/fixture-nodes.ts adds the fixture ones).
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    log: () => {},
  });
  // The run's shared Chromium (global-setup.ts), else one of this session's own; closing a
  // connected browser closes this session's contexts and leaves the shared one running.
  const endpoint = inject('chromiumEndpoint');
  const browser = endpoint
    ? await chromium.connect(endpoint)
    : await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const pageErrors: string[] = [];
  const foreignRequests: string[] = [];
  const origin = new URL(studio.url).origin;
  const newPage = async (opening: { startPage?: boolean } = {}) => {
    const page = await context.newPage();
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:'))
        foreignRequests.push(url);
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(studio.url);
    await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
    if (!opening.startPage) await page.getByTestId('start-scratch').click();
    return page;
  };
  const page = await newPage();
  return {
    studio,
    store,
    dir,
    workspace,
    dbFile,
    browser,
    page,
    pageErrors,
    foreignRequests,
    newPage,
    async screenshot(name, shot = page) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await shot.screenshot({ path: file });
      return file;
    },
    async close() {
      await browser.close().catch(() => {});
      await studio.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A studio for the tests of one `describe`: opened before them, closed after. The tests get it
 * from the returned function.
 */
export function studioForSuite(
  options: () => Promise<Parameters<typeof openStudio>[0]> = async () => ({}),
): () => StudioSession {
  let session: StudioSession | undefined;
  beforeAll(async () => {
    session = await openStudio(await options());
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });
  return () => {
    if (!session) throw new Error('the studio did not start');
    return session;
  };
}

/**
 * Saves `doc` in the session's workspace as `file`, opens it from the toolbar's Open list, and
 * waits for its node `node` on the canvas.
 */
export async function openDocument(
  s: StudioSession,
  file: string,
  doc: unknown,
  node: string,
): Promise<void> {
  writeFileSync(path.join(s.workspace, file), JSON.stringify(doc));
  await s.page.getByTestId('tb-open').click();
  await s.page.getByTestId(`file-${file}`).click();
  await s.page.getByTestId(`node-${node}`).waitFor();
}

/** Drags a palette entry onto the canvas at a point relative to the canvas's top-left corner. */
export async function dropFromPalette(page: Page, type: string, at: { x: number; y: number }) {
  await page.dragAndDrop(`[data-testid="palette-${type}"]`, '.react-flow__pane', {
    targetPosition: at,
  });
}

/** Drags a wire from one node's output handle to another's input handle, like a person does. */
export async function drawEdge(
  page: Page,
  from: { node: string; port: string },
  to: { node: string; port: string },
): Promise<void> {
  const source = page.getByTestId(`handle-${from.node}-out-${from.port}`);
  const target = page.getByTestId(`handle-${to.node}-in-${to.port}`);
  const a = await source.boundingBox();
  const b = await target.boundingBox();
  if (!a || !b)
    throw new Error(`handle not visible: ${from.node}.${from.port} or ${to.node}.${to.port}`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  // Several steps, so React Flow sees a drag and checks the connection on the way.
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}

/**
 * Replaces the text of a Monaco field (a prompt, a role) by typing, as a person would; with
 * `paste`, the text goes in as one input, as a paste does (key by key is slow on a loaded machine).
 */
export async function typeInEditor(
  page: Page,
  testId: string,
  text: string,
  options: { paste?: boolean } = {},
): Promise<void> {
  const editor = page.locator(`[data-testid="${testId}"] .monaco-editor`);
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  if (options.paste) await page.keyboard.insertText(text);
  else await page.keyboard.type(text);
  // Monaco's suggestion list may be open; it must not take the next keys.
  await page.keyboard.press('Escape');
}

/** An element's place on the page, in CSS pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Waits for an element to be visible and returns its box (a person can see it). */
export async function visibleBox(element: Locator): Promise<Box> {
  await element.waitFor({ state: 'visible' });
  const box = await element.boundingBox();
  if (!box) throw new Error(`not on the page: ${element}`);
  return box;
}

/** Whether two boxes share any area, each grown by `margin` pixels on every side. */
export function overlaps(a: Box, b: Box, margin = 0): boolean {
  return (
    a.x - margin < b.x + b.width + margin &&
    b.x - margin < a.x + a.width + margin &&
    a.y - margin < b.y + b.height + margin &&
    b.y - margin < a.y + a.height + margin
  );
}

/**
 * Zooms the canvas in until it draws every detail of the cards (the level of detail
 * renderer/editor/lod.ts calls full: 100% and more; below, cards show their titles alone):
 * with the mouse wheel over `around`'s top left corner, which stays where it is, or with the
 * + button around the middle of the canvas.
 */
export async function zoomToFullDetail(page: Page, around?: Locator): Promise<void> {
  const canvas = page.getByTestId('canvas');
  for (let i = 0; i < 20 && (await canvas.getAttribute('data-lod')) !== 'full'; i++) {
    const box = around ? await around.boundingBox() : null;
    if (box) {
      await page.mouse.move(box.x + 4, box.y + 4);
      await page.mouse.wheel(0, -200);
    } else await page.locator('.react-flow__controls-zoomin').click();
  }
  await page.locator('[data-testid="canvas"][data-lod="full"]').waitFor();
}

/** The page-side half of visibleTexts: an arrow function's source (see the file). */
const VISIBLE_TEXTS = readFileSync(new URL('./visible-texts.js', import.meta.url), 'utf8')
  .trim()
  .replace(/;$/, '');

/** A run of text a person can see, with the size it renders at on screen. */
export interface VisibleText {
  /** Its font size times every scale above it (the canvas's zoom, say), in CSS pixels. */
  px: number;
  /** The text, cut to 40 characters. */
  text: string;
  /** Where it is: the element's tag, test id or classes, and those of its nearest ancestors. */
  where: string;
}

/**
 * The visible texts on the page (or inside `within`), smallest rendered size first, at most
 * `limit` of them. A text counts when some of it is inside the window and inside every ancestor
 * that clips (a scrolled list, the canvas), and neither `visibility` nor `opacity` hides it;
 * text a style sheet draws (a ::before or ::after `content`) counts as its element's. Its
 * size is the computed font size times the scale of every CSS transform (and `zoom`) above it,
 * so a card's 11 px label on a canvas zoomed to 50% counts as 5.5 px.
 */
export async function visibleTexts(
  page: Page,
  options: { within?: string; limit?: number } = {},
): Promise<VisibleText[]> {
  const args = { within: options.within ?? 'body', limit: options.limit ?? 20 };
  return page.evaluate(`(${VISIBLE_TEXTS})(${JSON.stringify(args)})`);
}

/** The smallest visible text on the page or inside `within` (see visibleTexts), if any. */
export async function smallestVisibleText(
  page: Page,
  within?: string,
): Promise<VisibleText | undefined> {
  return (await visibleTexts(page, { limit: 1, ...(within ? { within } : {}) }))[0];
}

/** The canvas's view transform, once it has stopped moving (a fit or a zoom animates). */
export async function settledView(page: Page): Promise<{ x: number; y: number; zoom: number }> {
  let last = '';
  await expect
    .poll(
      async () => {
        const now = (await page.locator('.react-flow__viewport').getAttribute('style')) ?? '';
        const same = now === last;
        last = now;
        return same;
      },
      { timeout: 5000, interval: 250 },
    )
    .toBe(true);
  const [x = 0, y = 0, zoom = 1] = (last.match(/-?[\d.]+(e-?\d+)?/g) ?? []).map(Number);
  return { x, y, zoom };
}
