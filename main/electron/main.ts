/**
 * The desktop app's main process: one hardened editor window over the same API handlers the
 * studio serves (main/api/handlers.ts), reached through IPC instead of a WebSocket. Loaded by
 * entry.mjs; Electron's Node strips the TypeScript types, as `node` does for the CLI.
 *
 * This file only wires Electron to the policy in policy.ts, the dispatcher in ipc.ts and the
 * vault in encrypted-vault.ts, which are tested under Node. Item numbers refer to
 * shared/research/anchors-style-security.md, Part B:
 * - S1: the one window is sandboxed and context-isolated, with no Node integration;
 * - S2: the page comes from the privileged `app://bundle/` scheme, never `file://`;
 * - S3: every response carries the strict Content-Security-Policy, and network requests from the
 *   page are cancelled;
 * - S4: navigation off the app origin, redirects, new windows and webviews are refused (but a
 *   docs page, app://bundle/docs/…, which opens in its own window with no preload);
 * - S5: every permission request and check is denied; DevTools only when not packaged;
 * - S7: one `ipcMain.handle` per contract method, each checking the sender and validating the
 *   request and the answer; run events go to the editor window only;
 * - S10/S11/S14: keys are encrypted with safeStorage's async API, or kept in memory when the
 *   keychain is missing or only `basic_text`.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  type IpcMainInvokeEvent,
  ipcMain,
  nativeTheme,
  protocol,
  safeStorage,
  session,
} from 'electron';
import { defaultDatabasePath, openRunStore, type RunStore } from '../../app/store/index.ts';
import { type ApiHandlers, createApiHandlers } from '../api/handlers.ts';
import { runEventBatcher } from '../api/push-batch.ts';
import { docsAnswer } from '../docs/docs.ts';
import { DEFAULT_RENDERER_DIR } from '../studio/server.ts';
import { defaultWorkspace } from '../studio/start.ts';
import {
  type EncryptedVault,
  keyStorageMode,
  openEncryptedVault,
  type StorageBackend,
} from './encrypted-vault.ts';
import {
  API_METHODS,
  channelOf,
  createIpcDispatcher,
  type IpcSender,
  RUN_EVENT_CHANNEL,
  runEventsMessage,
} from './ipc.ts';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  appDocsPath,
  docsWindowPreferences,
  isAllowedNavigation,
  isBlockedRequest,
  mimeTypeOf,
  RESPONSE_HEADERS,
  resolveAppFile,
  windowWebPreferences,
} from './policy.ts';

const PRELOAD = fileURLToPath(new URL('./preload.cjs', import.meta.url));
const RENDERER_DIR = DEFAULT_RENDERER_DIR;

/** Shown when the renderer has not been built; no script, so the CSP allows it as is. */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Society Studio</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5; background: #0f1115; color: #e6e9ef">
<h1>Society Studio</h1>
<p>The editor is not built yet. Quit, run <code>npm run build</code>, and start the app again
(<code>npm start</code> builds it for you).</p>
</body></html>
`;

const log = (line: string) => process.stderr.write(`${line}\n`);

// Before `ready`: the name gives userData the product's folder in development too; the scheme
// must be privileged before the app is ready (S2); every renderer is sandboxed (S1).
app.setName('Society Studio');
protocol.registerSchemesAsPrivileged([
  {
    scheme: APP_SCHEME,
    // Not corsEnabled and not bypassCSP: the scheme stays unreadable from other origins and
    // under the page's policy.
    privileges: { standard: true, secure: true, supportFetchAPI: true },
  },
]);
app.enableSandbox();

// S4: every web contents, whatever creates it, stays on the app origin and opens nothing.
app.on('web-contents-created', (_event, contents) => {
  const refuseOffOrigin = (event: { url: string; preventDefault(): void }) => {
    if (!isAllowedNavigation(event.url)) {
      event.preventDefault();
      log(`society desktop: refused to navigate to ${event.url}`);
    }
  };
  contents.on('will-navigate', refuseOffOrigin);
  contents.on('will-frame-navigate', refuseOffOrigin);
  contents.on('will-redirect', refuseOffOrigin);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // The help's links to the docs (app://bundle/docs/…) open in a window of their own, with no
  // preload; anything else is refused.
  contents.setWindowOpenHandler(({ url }) =>
    appDocsPath(url)
      ? {
          action: 'allow',
          overrideBrowserWindowOptions: {
            width: 1000,
            height: 800,
            autoHideMenuBar: true,
            webPreferences: docsWindowPreferences(app.isPackaged),
          },
        }
      : { action: 'deny' },
  );
});

let editorWindow: BrowserWindow | undefined;

if (!app.requestSingleInstanceLock()) {
  // Another instance owns the window and the run store; it is focused instead.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!editorWindow || editorWindow.isDestroyed()) return;
    if (editorWindow.isMinimized()) editorWindow.restore();
    editorWindow.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app
    .whenReady()
    .then(startDesktop)
    .catch((error: unknown) => {
      dialog.showErrorBox(
        'Society Studio cannot start',
        error instanceof Error ? error.message : String(error),
      );
      app.exit(1);
    });
}

async function startDesktop(): Promise<void> {
  hardenSession();
  protocol.handle(APP_SCHEME, serveBundle);

  const keys = await openKeyVault();
  const dbFile = defaultDatabasePath();
  let store: RunStore;
  try {
    store = openRunStore(dbFile);
  } catch (error) {
    throw new Error(`cannot open the run store ${dbFile}: ${(error as Error).message}`);
  }
  const handlers = createApiHandlers({
    store,
    workspaceDir: path.resolve(defaultWorkspace()),
    keys,
    log,
    // Only the editor window reaches these handlers (S7), and its page asks the person before
    // it points a key at another server; no token or cookie exists that another page could use.
    keyRedirects: 'allowed',
    // A native dialog the page cannot answer for the person: adding a server that runs a program
    // shows them the exact command line first (main/api/mcp-program.ts).
    confirm: confirmInDialog,
  });
  registerIpc(handlers);

  // Run events go to the editor window's web contents only, never broadcast.
  const batcher = runEventBatcher((batch) => {
    if (editorWindow && !editorWindow.isDestroyed()) {
      editorWindow.webContents.send(RUN_EVENT_CHANNEL, runEventsMessage(batch));
    }
  });
  handlers.onRunEvent((push) => batcher.add(push));

  let stopped = false;
  app.on('will-quit', (event) => {
    if (stopped) return;
    // Cancel running runs and wait until the store has recorded them, then quit for real.
    event.preventDefault();
    void shutdown(handlers, keys, store).finally(() => {
      stopped = true;
      app.quit();
    });
  });

  editorWindow = createWindow();
}

/** Asks the person in a native dialog over the editor window; Cancel is the default. */
async function confirmInDialog(message: string): Promise<boolean> {
  const [question, ...detail] = message.split('\n');
  const options = {
    type: 'warning' as const,
    title: 'Society Studio',
    message: question ?? message,
    detail: detail.join('\n').trim(),
    buttons: ['Cancel', 'Add it'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
  const { response } =
    editorWindow && !editorWindow.isDestroyed()
      ? await dialog.showMessageBox(editorWindow, options)
      : await dialog.showMessageBox(options);
  return response === 1;
}

/** S3, S5: no permission is ever granted, and the page reaches no network or file URL. */
function hardenSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => {
    const cancel = isBlockedRequest(details.url);
    if (cancel) log(`society desktop: cancelled a request to ${details.url}`);
    callback({ cancel });
  });
}

/** S2: serves the built renderer on app://bundle/, with the CSP on every response. */
async function serveBundle(request: Request): Promise<Response> {
  const headers = (type: string) => ({ ...RESPONSE_HEADERS, 'Content-Type': type });
  const notFound = () =>
    new Response('Not Found\n', { status: 404, headers: headers('text/plain; charset=utf-8') });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(null, {
      status: 405,
      headers: { ...RESPONSE_HEADERS, Allow: 'GET, HEAD' },
    });
  }
  const docs = appDocsPath(request.url);
  if (docs) {
    const answer = docsAnswer(docs);
    return new Response(request.method === 'HEAD' ? null : answer.body, {
      status: answer.status,
      headers: headers(answer.contentType),
    });
  }
  const file = resolveAppFile(request.url, RENDERER_DIR);
  if (!file) return notFound();
  if (!existsSync(path.join(RENDERER_DIR, 'index.html'))) {
    return file === path.join(path.resolve(RENDERER_DIR), 'index.html')
      ? new Response(NOT_BUILT_PAGE, { status: 200, headers: headers(mimeTypeOf(file)) })
      : notFound();
  }
  try {
    if (!(await stat(file)).isFile()) return notFound();
    const body = request.method === 'HEAD' ? null : await readFile(file);
    return new Response(body, { status: 200, headers: headers(mimeTypeOf(file)) });
  } catch {
    return notFound();
  }
}

/** S10, S11, S14: the vault over safeStorage's async API, or memory only when unsafe. */
async function openKeyVault(): Promise<EncryptedVault> {
  const encryptionAvailable = await safeStorage.isAsyncEncryptionAvailable();
  const backend: StorageBackend | undefined =
    process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : undefined;
  const mode = keyStorageMode({
    encryptionAvailable,
    platform: process.platform,
    backend,
    env: process.env,
  });
  if (mode.warning) log(mode.warning);
  return openEncryptedVault({
    file: path.join(app.getPath('userData'), 'keys.json'),
    cipher: mode.persist
      ? {
          encrypt: (text) => safeStorage.encryptStringAsync(text),
          decrypt: (bytes) => safeStorage.decryptStringAsync(Buffer.from(bytes)),
        }
      : undefined,
    log,
  });
}

/** S7: one handler per contract method, on its own channel. */
function registerIpc(handlers: ApiHandlers): void {
  const dispatch = createIpcDispatcher(handlers, log);
  const senderOf = (event: IpcMainInvokeEvent): IpcSender => {
    const frame = event.senderFrame;
    return {
      frameUrl: frame?.url,
      topFrame: frame !== null && frame.parent === null,
      fromAppWindow:
        editorWindow !== undefined &&
        !editorWindow.isDestroyed() &&
        event.sender === editorWindow.webContents,
    };
  };
  for (const method of API_METHODS) {
    ipcMain.handle(channelOf(method), (event, params: unknown) =>
      dispatch(method, senderOf(event), params),
    );
  }
}

/** S1: the editor window. */
function createWindow(): BrowserWindow {
  const created = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Society Studio',
    // The page's own --bg (renderer/styles.css) in the system's theme, so no other colour shows
    // before it draws (a theme picked in Settings applies with the page's first frame).
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#0f1115' : '#f4f5f7',
    webPreferences: windowWebPreferences(PRELOAD, app.isPackaged),
  });
  created.once('ready-to-show', () => created.show());
  created.loadURL(APP_ENTRY_URL).catch((error: unknown) => {
    log(`society desktop: cannot load the editor: ${(error as Error).message}`);
  });
  return created;
}

async function shutdown(handlers: ApiHandlers, keys: EncryptedVault, store: RunStore) {
  try {
    await handlers.close();
    await keys.flush();
  } catch (error) {
    log(`society desktop: while stopping: ${(error as Error).message}`);
  } finally {
    store.close();
  }
}
