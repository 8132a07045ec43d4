/**
 * The main process's wiring, with a stand-in for Electron (its program cannot run on the
 * machines the tests run on): what is registered before `ready`, the window's preferences, the
 * app:// protocol, the session's refusals, the IPC channels and their sender check, the vault,
 * and a clean quit. The rules themselves are tested in policy, ipc and encrypted-vault tests.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_METHODS, channelOf } from './ipc.ts';
import { APP_ENTRY_URL, CONTENT_SECURITY_POLICY } from './policy.ts';

// biome-ignore lint/suspicious/noExplicitAny: a loose stand-in for Electron's API
type Fn = (...args: any[]) => any;

const fake = vi.hoisted(() => {
  const listeners = new Map<string, Fn[]>();
  /** Every call to the stand-in, by function name (kept across tests, unlike vi.fn's). */
  const calls = new Map<string, unknown[][]>();
  const record =
    (name: string, impl: Fn = () => undefined): Fn =>
    (...args: unknown[]) => {
      calls.set(name, [...(calls.get(name) ?? []), args]);
      return impl(...args);
    };
  const order: string[] = [];
  const state = { userData: '', ready: false };
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = () => {
      state.ready = true;
      resolve();
    };
  });
  const on = (target: object) => (event: string, listener: Fn) => {
    listeners.set(event, [...(listeners.get(event) ?? []), listener]);
    return target;
  };
  const app: Record<string, unknown> = {
    isPackaged: true,
    setName: record('setName', () => order.push('setName')),
    enableSandbox: record('enableSandbox', () => order.push(`enableSandbox ready=${state.ready}`)),
    requestSingleInstanceLock: record('requestSingleInstanceLock', () => true),
    whenReady: record('whenReady', () => ready),
    getPath: record('getPath', () => state.userData),
    quit: record('app.quit'),
    exit: record('app.exit'),
  };
  app.on = on(app);
  class BrowserWindow {
    static created: BrowserWindow[] = [];
    options: Record<string, unknown>;
    webContents = { send: record('webContents.send') };
    once = record('window.once');
    loadURL = record('window.loadURL', async () => {});
    isDestroyed = () => false;
    isMinimized = () => false;
    restore = record('window.restore');
    focus = record('window.focus');
    show = record('window.show');
    constructor(options: Record<string, unknown>) {
      this.options = options;
      BrowserWindow.created.push(this);
    }
  }
  const xor = (bytes: Uint8Array) => Uint8Array.from(bytes, (b) => b ^ 0x5a);
  const electron = {
    app,
    BrowserWindow,
    dialog: { showErrorBox: record('dialog.showErrorBox') },
    ipcMain: { handle: record('ipcMain.handle') },
    // The window's first colour follows the system's theme (dark here).
    nativeTheme: { shouldUseDarkColors: true },
    protocol: {
      registerSchemesAsPrivileged: record('protocol.registerSchemesAsPrivileged', () =>
        order.push(`registerSchemes ready=${state.ready}`),
      ),
      handle: record('protocol.handle'),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: record('setPermissionRequestHandler'),
        setPermissionCheckHandler: record('setPermissionCheckHandler'),
        setDevicePermissionHandler: record('setDevicePermissionHandler'),
        webRequest: { onBeforeRequest: record('onBeforeRequest') },
      },
    },
    safeStorage: {
      isAsyncEncryptionAvailable: record('isAsyncEncryptionAvailable', async () => true),
      getSelectedStorageBackend: record('getSelectedStorageBackend', () => 'gnome_libsecret'),
      encryptStringAsync: record('encryptStringAsync', async (text: string) =>
        Buffer.from(xor(Buffer.from(text))),
      ),
      decryptStringAsync: record('decryptStringAsync', async (bytes: Buffer) => ({
        result: Buffer.from(xor(bytes)).toString('utf8'),
        shouldReEncrypt: false,
      })),
    },
  };
  return { electron, listeners, calls, order, state, markReady: () => markReady() };
});

vi.mock('electron', () => fake.electron);

const { electron } = fake;
const KEY = 'sk-test-abcdefghijklmnop4321';

/** The calls made to a stand-in function. */
function callsOf(name: string): unknown[][] {
  return fake.calls.get(name) ?? [];
}

/** The handler registered for an IPC channel. */
function handlerOf(channel: string): Fn {
  const call = callsOf('ipcMain.handle').find((c) => c[0] === channel);
  if (!call) throw new Error(`no handler on ${channel}`);
  return call[1] as Fn;
}

describe('the main process', () => {
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'society-desktop-'));
    process.env.SOCIETY_DB = path.join(dir, 'society.db');
    process.env.SOCIETY_WORKSPACE = path.join(dir, 'workspace');
    fake.state.userData = path.join(dir, 'user-data');
    await import('./main.ts');
    fake.markReady();
    await vi.waitFor(() => expect(electron.BrowserWindow.created).toHaveLength(1), {
      timeout: 10_000,
    });
  });

  afterAll(async () => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the app scheme and the sandbox before ready', () => {
    expect(fake.order).toEqual([
      'setName',
      'registerSchemes ready=false',
      'enableSandbox ready=false',
    ]);
    expect(callsOf('protocol.registerSchemesAsPrivileged')).toEqual([
      [[{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]],
    ]);
  });

  it('opens one hardened window on app://bundle', () => {
    const [window] = electron.BrowserWindow.created;
    const prefs = window!.options.webPreferences as Record<string, unknown>;
    // Dark before the page draws, as the system is (no white flash).
    expect(window!.options.backgroundColor).toBe('#0f1115');
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      devTools: false,
    });
    expect(prefs.preload).toMatch(/preload\.cjs$/);
    expect(existsSync(prefs.preload as string)).toBe(true);
    expect(callsOf('window.loadURL')).toEqual([[APP_ENTRY_URL]]);
  });

  it('denies every permission and cancels network requests', () => {
    const first = (name: string) => callsOf(name)[0]![0] as Fn;
    const callback = vi.fn();
    first('setPermissionRequestHandler')(null, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(first('setPermissionCheckHandler')(null, 'clipboard-read')).toBe(false);
    expect(first('setDevicePermissionHandler')({})).toBe(false);
    const onBefore = first('onBeforeRequest');
    const answer = vi.fn();
    onBefore({ url: 'https://api.openai.com/v1' }, answer);
    onBefore({ url: 'app://bundle/assets/x.js' }, answer);
    expect(answer.mock.calls).toEqual([[{ cancel: true }], [{ cancel: false }]]);
  });

  it('keeps every web contents on the app origin and opens no window', () => {
    const created = fake.listeners.get('web-contents-created')![0]!;
    const on = new Map<string, Fn>();
    let openHandler: Fn | undefined;
    created(
      {},
      {
        on: (event: string, listener: Fn) => on.set(event, listener),
        setWindowOpenHandler: (handler: Fn) => {
          openHandler = handler;
        },
      },
    );
    for (const event of ['will-navigate', 'will-frame-navigate', 'will-redirect']) {
      const away = { url: 'https://evil.example/', preventDefault: vi.fn() };
      on.get(event)!(away);
      expect(away.preventDefault, event).toHaveBeenCalled();
      const home = { url: 'app://bundle/index.html', preventDefault: vi.fn() };
      on.get(event)!(home);
      expect(home.preventDefault, event).not.toHaveBeenCalled();
    }
    const webview = { preventDefault: vi.fn() };
    on.get('will-attach-webview')!(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
    expect(openHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'app://bundle/index.html' })).toEqual({ action: 'deny' });
    // The help's docs links open a window of their own, sandboxed and with no preload.
    const docs = openHandler!({ url: 'app://bundle/docs/tools.md' });
    expect(docs.action).toBe('allow');
    expect(docs.overrideBrowserWindowOptions.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
    });
    expect(docs.overrideBrowserWindowOptions.webPreferences.preload).toBeUndefined();
  });

  it('serves the bundle on app:// with the CSP, and nothing outside it', async () => {
    const [scheme, serve] = callsOf('protocol.handle')[0]! as [string, Fn];
    expect(scheme).toBe('app');
    const page = (await serve(new Request('app://bundle/index.html'))) as Response;
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<html');
    for (const url of [
      'app://bundle/../../etc/passwd',
      'app://bundle/%2e%2e/%2e%2e/etc/passwd',
      'app://bundle/nothing-here.js',
    ]) {
      const refused = (await serve(new Request(url))) as Response;
      expect(refused.status, url).toBe(404);
      expect(refused.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    const post = (await serve(
      new Request('app://bundle/index.html', { method: 'POST' }),
    )) as Response;
    expect(post.status).toBe(405);
  });

  it('serves the docs on app://bundle/docs/, rendered, and only the docs', async () => {
    const [, serve] = callsOf('protocol.handle')[0]! as [string, Fn];
    const tools = (await serve(new Request('app://bundle/docs/tools.md'))) as Response;
    expect(tools.status).toBe(200);
    expect(tools.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(tools.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await tools.text()).toContain(
      '<h1 id="agents-that-use-tools">Agents that use tools</h1>',
    );
    const index = (await serve(new Request('app://bundle/docs/'))) as Response;
    expect(await index.text()).toContain('href="/docs/README.md"');
    for (const url of [
      'app://bundle/docs/../package.json',
      'app://bundle/docs/%2e%2e/package.json',
      'app://bundle/docs/..%2fpackage.json',
      'app://bundle/docs/nothing.md',
    ]) {
      const refused = (await serve(new Request(url))) as Response;
      expect(refused.status, url).toBe(404);
    }
  });

  it('handles one channel per contract method, checking the sender', async () => {
    const channels = callsOf('ipcMain.handle').map((c) => c[0]);
    expect(channels).toEqual(API_METHODS.map(channelOf));
    const [window] = electron.BrowserWindow.created;
    const fromEditor = {
      sender: window!.webContents,
      senderFrame: { url: 'app://bundle/index.html', parent: null },
    };
    expect(await handlerOf('api:files.list')(fromEditor, {})).toEqual({ result: [] });
    const fromElsewhere = {
      sender: window!.webContents,
      senderFrame: { url: 'https://evil.example/', parent: null },
    };
    expect(await handlerOf('api:files.list')(fromElsewhere, {})).toEqual({
      error: { message: expect.stringMatching(/^refused/) },
    });
    const fromSubframe = {
      sender: window!.webContents,
      senderFrame: { url: 'app://bundle/index.html', parent: {} },
    };
    expect(await handlerOf('api:files.list')(fromSubframe, {})).toMatchObject({
      error: { message: expect.stringMatching(/^refused/) },
    });
    const fromOtherContents = { ...fromEditor, sender: { send: vi.fn() } };
    expect(await handlerOf('api:files.list')(fromOtherContents, {})).toMatchObject({
      error: { message: expect.stringMatching(/^refused/) },
    });
    const gone = { sender: window!.webContents, senderFrame: null };
    expect(await handlerOf('api:files.list')(gone, {})).toMatchObject({
      error: { message: expect.stringMatching(/^refused/) },
    });
  });

  it('keeps keys encrypted with safeStorage in userData, never returning them', async () => {
    const [window] = electron.BrowserWindow.created;
    const fromEditor = {
      sender: window!.webContents,
      senderFrame: { url: 'app://bundle/index.html', parent: null },
    };
    const answer = await handlerOf('api:settings.setKey')(fromEditor, {
      name: 'OPENAI_API_KEY',
      value: KEY,
    });
    expect(answer).toEqual({
      result: expect.objectContaining({ name: 'OPENAI_API_KEY', configured: true, last4: '4321' }),
    });
    expect(JSON.stringify(answer)).not.toContain(KEY);
    const file = path.join(fake.state.userData, 'keys.json');
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    expect(callsOf('encryptStringAsync')).toContainEqual([KEY]);
  });

  it("lets the editor window point a provider's key at another server (its page asks first)", async () => {
    const [window] = electron.BrowserWindow.created;
    const fromEditor = {
      sender: window!.webContents,
      senderFrame: { url: 'app://bundle/index.html', parent: null },
    };
    const answer = await handlerOf('api:settings.providers.save')(fromEditor, {
      name: 'openai',
      baseUrl: 'https://proxy.example/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(answer).toMatchObject({
      result: {
        custom: [
          { name: 'openai', baseUrl: 'https://proxy.example/v1', apiKeyEnv: 'OPENAI_API_KEY' },
        ],
      },
    });
    // The studio refuses the same request (main/studio/server.test.ts); a subframe here too.
    const fromSubframe = { ...fromEditor, senderFrame: { ...fromEditor.senderFrame, parent: {} } };
    expect(
      await handlerOf('api:settings.providers.remove')(fromSubframe, { name: 'openai' }),
    ).toMatchObject({ error: { message: expect.stringMatching(/^refused/) } });
    expect(
      await handlerOf('api:settings.providers.remove')(fromEditor, { name: 'openai' }),
    ).toMatchObject({ result: { custom: [] } });
  });

  it('records running runs and closes the store before quitting', async () => {
    const willQuit = fake.listeners.get('will-quit')![0]!;
    const event = { preventDefault: vi.fn() };
    willQuit(event);
    expect(event.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(callsOf('app.quit')).toHaveLength(1));
    // Once stopped, quitting goes ahead.
    const again = { preventDefault: vi.fn() };
    willQuit(again);
    expect(again.preventDefault).not.toHaveBeenCalled();
    expect(fake.listeners.get('window-all-closed')).toHaveLength(1);
  });
});
