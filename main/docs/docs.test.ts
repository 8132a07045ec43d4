import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_DOCS_ROOT, docsAnswer, docsFiles, docsLink } from './docs.ts';
import { renderMarkdown } from './markdown.ts';

const html = (md: string) => renderMarkdown(md, (href) => href).html;

describe('the docs renderer', () => {
  it('renders headings with GitHub anchors, paragraphs, emphasis and inline code', () => {
    const out = html(
      '# Graph format\n\nA **bold** and *soft* word, `a <b> code`.\n\n## Sub-societies & bounds\n',
    );
    expect(out).toContain('<h1 id="graph-format">Graph format</h1>');
    expect(out).toContain(
      '<p>A <strong>bold</strong> and <em>soft</em> word, <code>a &lt;b&gt; code</code>.</p>',
    );
    expect(out).toContain('<h2 id="sub-societies--bounds">Sub-societies &amp; bounds</h2>');
  });

  it('renders nested lists, fenced code and tables', () => {
    const out = html(
      [
        '- one',
        '  - nested `x`',
        '- two',
        '  continued',
        '',
        '1. first',
        '2. second',
        '',
        '```sh',
        'npx society run a.json --input q=<x>',
        '```',
        '',
        '| flag | what |',
        '|---|---|',
        '| `--a \\| b` | **yes** |',
      ].join('\n'),
    );
    expect(out).toContain('<ul>\n<li>one\n<ul>\n<li>nested <code>x</code></li>\n</ul></li>');
    expect(out).toContain('<li>two continued</li>');
    expect(out).toContain('<ol>\n<li>first</li>\n<li>second</li>\n</ol>');
    expect(out).toContain(
      '<pre><code class="language-sh">npx society run a.json --input q=&lt;x&gt;</code></pre>',
    );
    expect(out).toContain('<thead><tr><th>flag</th><th>what</th></tr></thead>');
    expect(out).toContain('<td><code>--a \\| b</code></td><td><strong>yes</strong></td>');
  });

  it('escapes raw HTML everywhere: text, code, link text and link targets', () => {
    const out = html(
      [
        'Hello <script>alert(1)</script> <img src=x onerror=alert(2)>',
        '',
        '[<b>x</b>](https://example.com/"onmouseover="alert(3))',
        '',
        '<div>block</div>',
        '',
        '<!-- a note for editors',
        'over two lines -->',
        'After the note.',
      ].join('\n'),
    );
    expect(out).not.toContain('note for editors');
    expect(out).toContain('<p>After the note.</p>');
    expect(out).not.toMatch(/<(script|img|div|b)[\s>]/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('href="https://example.com/&quot;onmouseover=&quot;alert(3"');
  });

  it('loads no image: an image shows its alt text', () => {
    expect(html('![a graph](https://example.com/g.png)')).toBe('<p>a graph</p>\n');
  });
});

describe('the docs served at /docs/', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'society-docs-'));
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(
      path.join(root, 'README.md'),
      '# Society Studio\n\nSee [tools](docs/tools.md#approval), [the code](app/x.ts), [js](javascript:alert(1)) and <script>alert(1)</script>.\n',
    );
    writeFileSync(
      path.join(root, 'docs', 'tools.md'),
      '# Tools\n\nBack to [the README](../README.md).\n',
    );
    writeFileSync(path.join(root, 'package.json'), '{"secret": true}');
    writeFileSync(path.join(root, 'docs', 'notes.txt'), 'not a doc');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('lists README.md and docs/*.md, nothing else', () => {
    expect([...docsFiles(root)]).toEqual([
      ['README.md', 'README.md'],
      ['tools.md', 'docs/tools.md'],
    ]);
    const index = docsAnswer('/docs/', root);
    expect(index.status).toBe(200);
    expect(index.body).toContain('<a href="/docs/README.md">Society Studio</a>');
    expect(index.body).toContain('<a href="/docs/tools.md">Tools</a>');
  });

  it('renders a doc with its links rewritten to /docs/ and its script as text', () => {
    const readme = docsAnswer('/docs/README.md', root);
    expect(readme.status).toBe(200);
    expect(readme.contentType).toBe('text/html; charset=utf-8');
    expect(readme.body).toContain('<title>Society Studio · Society Studio docs</title>');
    expect(readme.body).toContain('<a href="/docs/tools.md#approval">tools</a>');
    // A file that is not a doc, or a scheme that is not the web's, is text, not a link.
    expect(readme.body).toContain('<span class="link-text" title="app/x.ts">the code</span>');
    expect(readme.body).not.toContain('href="javascript:');
    expect(readme.body).not.toContain('<script>');
    expect(readme.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(docsAnswer('/docs/tools.md', root).body).toContain(
      '<a href="/docs/README.md">the README</a>',
    );
    expect(docsLink('../tests/wire/README.md', 'docs/architecture.md', docsFiles(root))).toBe(
      undefined,
    );
  });

  it('serves nothing but a listed doc: no traversal, no other file', () => {
    for (const pathname of [
      '/docs/../package.json',
      '/docs/..%2fpackage.json',
      '/docs/%2e%2e%2fpackage.json',
      '/docs/docs/tools.md',
      '/docs/notes.txt',
      '/docs/missing.md',
      '/docs/%E0%A4%A',
      '/docs/README.md%00',
    ]) {
      const answer = docsAnswer(pathname, root);
      expect(answer.status, pathname).toBe(404);
      expect(answer.body).not.toContain('secret');
    }
  });
});

describe('the packaged app', () => {
  /** Whether electron-builder packs `file`: its patterns in order, a `!` one excluding. */
  const packed = (file: string, patterns: string[]) => {
    let match = false;
    for (const pattern of patterns) {
      const negate = pattern.startsWith('!');
      if (match !== negate) continue;
      match = negate ? !path.matchesGlob(file, pattern.slice(1)) : path.matchesGlob(file, pattern);
    }
    return match;
  };

  it('ships every doc the app serves, and still no other README', () => {
    const config = parse(
      readFileSync(path.join(DEFAULT_DOCS_ROOT, 'electron-builder.yml'), 'utf8'),
    ) as { files: string[] };
    const served = [...docsFiles().values()];
    expect(served).toEqual(expect.arrayContaining(['README.md', 'docs/tools.md']));
    for (const file of served) expect(packed(file, config.files), file).toBe(true);
    expect(packed('main/README.md', config.files)).toBe(false);
    expect(packed('main/docs/docs.ts', config.files)).toBe(true);
  });
});
