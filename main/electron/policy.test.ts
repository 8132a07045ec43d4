import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  appDocsPath,
  CONTENT_SECURITY_POLICY,
  docsWindowPreferences,
  isAllowedNavigation,
  isAppUrl,
  isBlockedRequest,
  isTrustedSender,
  mimeTypeOf,
  RESPONSE_HEADERS,
  resolveAppFile,
  windowWebPreferences,
} from './policy.ts';

/** The policy as directive → sources. */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name, sources);
  }
  return map;
}

describe('the content security policy (S3)', () => {
  const csp = directives(CONTENT_SECURITY_POLICY);

  it('lets scripts come only from the bundle: no inline script, no eval', () => {
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
    expect(['none', 'self'].map((s) => `'${s}'`)).toContain(csp.get('default-src')?.[0]);
    expect(csp.get('default-src')).toHaveLength(1);
  });

  it('lets the page connect nowhere but its own origin (the backend is over IPC)', () => {
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/\b(ws|wss|http|https):/);
    expect(CONTENT_SECURITY_POLICY).not.toContain('*');
  });

  it('forbids plugins, base rewriting, forms and framing', () => {
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('is sent with every response', () => {
    expect(RESPONSE_HEADERS['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(RESPONSE_HEADERS['X-Content-Type-Options']).toBe('nosniff');
  });
});

describe('the editor window (S1, S5)', () => {
  it('is isolated and sandboxed, with no Node and web security on', () => {
    const prefs = windowWebPreferences('/app/preload.cjs', true);
    expect(prefs).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      devTools: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });

  it('has DevTools only when not packaged', () => {
    expect(windowWebPreferences('/p', false).devTools).toBe(true);
    expect(windowWebPreferences('/p', true).devTools).toBe(false);
  });
});

describe('navigation (S4)', () => {
  it('stays on the app origin', () => {
    expect(isAllowedNavigation(APP_ENTRY_URL)).toBe(true);
    expect(isAllowedNavigation('app://bundle/')).toBe(true);
  });

  it.each([
    'https://example.com/',
    'http://127.0.0.1:8080/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'app://bundle.attacker.example/index.html',
    'app://other/index.html',
    'app://bundle@attacker.example/',
    'app://user:pw@bundle/',
    'app://bundle:8080/',
    'https://allowed.example.attacker.com/',
    'about:blank',
    'not a url',
    '',
  ])('refuses %s', (url) => {
    expect(isAllowedNavigation(url)).toBe(false);
  });

  it('cancels page requests to the network or the disk', () => {
    for (const url of [
      'https://api.openai.com/v1/chat',
      'http://127.0.0.1:1234/',
      'ws://127.0.0.1:5555/api',
      'wss://example.com/',
      'file:///home/me/.ssh/id_rsa',
    ]) {
      expect(isBlockedRequest(url), url).toBe(true);
    }
    for (const url of [
      'app://bundle/assets/index.js',
      'data:image/png;base64,AA==',
      'blob:app://bundle/1234',
    ]) {
      expect(isBlockedRequest(url), url).toBe(false);
    }
  });
});

describe('the IPC sender check (S7)', () => {
  it('trusts the top frame of the app page', () => {
    expect(isTrustedSender('app://bundle/index.html', true)).toBe(true);
  });

  it('refuses a subframe, another origin, and a frame that is gone', () => {
    expect(isTrustedSender('app://bundle/index.html', false)).toBe(false);
    expect(isTrustedSender('https://evil.example/', true)).toBe(false);
    expect(isTrustedSender('file:///tmp/page.html', true)).toBe(false);
    expect(isTrustedSender('app://bundle.evil.example/', true)).toBe(false);
    expect(isTrustedSender(undefined, true)).toBe(false);
    expect(isTrustedSender(null, true)).toBe(false);
    expect(isTrustedSender('', true)).toBe(false);
  });

  it('compares origins on the parsed URL', () => {
    expect(isAppUrl('app://bundle')).toBe(true);
    expect(isAppUrl('app://bundlex/')).toBe(false);
    expect(isAppUrl('apps://bundle/')).toBe(false);
  });
});

describe('app:// files (S2)', () => {
  const root = path.resolve('/srv/renderer');

  it('serves files of the bundle, and index.html at /', () => {
    expect(resolveAppFile('app://bundle/', root)).toBe(path.join(root, 'index.html'));
    expect(resolveAppFile('app://bundle/index.html', root)).toBe(path.join(root, 'index.html'));
    expect(resolveAppFile('app://bundle/assets/index-abc.js?v=1#x', root)).toBe(
      path.join(root, 'assets', 'index-abc.js'),
    );
    expect(resolveAppFile('app://bundle/assets/my%20font.woff2', root)).toBe(
      path.join(root, 'assets', 'my font.woff2'),
    );
  });

  it.each([
    'app://bundle/../../etc/passwd',
    'app://bundle/%2e%2e/%2e%2e/etc/passwd',
    'app://bundle/%2E%2E/%2E%2E/etc/passwd',
    'app://bundle/assets/..%2f..%2f..%2fetc/passwd',
    'app://bundle/assets/..%5c..%5cetc%5cpasswd',
    'app://bundle/assets/%2e%2e%2f%2e%2e%2fetc/passwd',
    'app://bundle/assets%5c..%5c..%5csecret',
    'app://bundle/.env',
    'app://bundle/assets/.git/config',
    'app://bundle/index.html%00.js',
    'app://bundle/%E0%A4%A',
    'app://other/index.html',
    'file:///etc/passwd',
    'https://bundle/index.html',
  ])('refuses %s', (url) => {
    expect(resolveAppFile(url, root)).toBeUndefined();
  });

  it('never resolves outside the root', () => {
    for (const url of ['app://bundle/a/b/../../../x', 'app://bundle//etc/passwd']) {
      const file = resolveAppFile(url, root);
      if (file !== undefined) expect(file.startsWith(root + path.sep)).toBe(true);
    }
  });

  it('gives module scripts a JavaScript type', () => {
    expect(mimeTypeOf('/r/assets/index.js')).toBe('text/javascript; charset=utf-8');
    expect(mimeTypeOf('/r/index.html')).toBe('text/html; charset=utf-8');
    expect(mimeTypeOf('/r/unknown.bin')).toBe('application/octet-stream');
  });
});

describe("docs pages (the help's links)", () => {
  it('are app://bundle/docs/… only, on the app origin', () => {
    expect(appDocsPath('app://bundle/docs/tools.md')).toBe('/docs/tools.md');
    expect(appDocsPath('app://bundle/docs/')).toBe('/docs/');
    for (const url of [
      'app://bundle/index.html',
      'app://bundle.evil.example/docs/tools.md',
      'app://x@bundle/docs/tools.md',
      'https://example.com/docs/tools.md',
      'file:///docs/tools.md',
      'not a url',
    ]) {
      expect(appDocsPath(url), url).toBeUndefined();
    }
  });

  it('open in a window as locked down as the editor, with no preload', () => {
    const prefs = docsWindowPreferences(true);
    expect(prefs).not.toHaveProperty('preload');
    const { preload: _, ...editor } = windowWebPreferences('/x/preload.cjs', true);
    expect(prefs).toEqual(editor);
  });
});
