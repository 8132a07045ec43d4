import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Liquid } from 'liquidjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { templateProblems } from './common.ts';
import {
  documentRenderer,
  renderTemplate,
  TemplateLimitError,
  templateFailure,
  templateRefusal,
  templateSlots,
} from './template.ts';
import { NO_FILE_OPTIONS } from './template-bounds.ts';

const MARKER = 'MARKER-the-users-secret-7f3a';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'society-template-'));
  writeFileSync(path.join(dir, '.env'), `KEY=${MARKER}`);
  writeFileSync(path.join(dir, 'notes.liquid'), MARKER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a render fails with, as the run reports it for a prompt. */
function failure(template: string, limits = DEFAULT_LIMITS, vars = {}): string {
  try {
    renderTemplate(template, vars, limits);
  } catch (error) {
    return templateFailure('prompt', error);
  }
  throw new Error(`expected "${template}" to fail`);
}

describe('templates read no files', () => {
  const including = [
    "{% include '.env' %}",
    "{% render 'notes' %}",
    "{% layout 'notes' %}body",
    "{% liquid\ninclude '.env'\n%}",
    "{% assign f = '.env' %}{% include f %}",
  ];

  it('the marker is there for a Liquid with a file system to read', () => {
    // So the refusals below are about our engine, not a missing file.
    expect(new Liquid({ root: dir }).parseAndRenderSync("{% include '.env' %}")).toContain(MARKER);
  });

  it('refuses include, render and layout when checking a node, naming the field', () => {
    for (const template of including) {
      const problems = templateProblems({ prompt: `Answer {{ question }}. ${template}` });
      expect(problems).toEqual([
        {
          path: ['prompt'],
          message: expect.stringMatching(
            /^templates cannot include other files \(\{% (include|render|layout) %\}\)$/,
          ),
        },
      ]);
    }
  });

  it('still knows the slots of a refused template, so its edges are not reported too', () => {
    expect(templateSlots("Answer {{ question }} {% include '.env' %}")).toEqual(['question']);
    expect(templateRefusal("{% render 'notes' %}")?.message).toBe(
      'templates cannot include other files ({% render %})',
    );
    expect(templateRefusal('{{ question }}')).toBeUndefined();
  });

  it('renders none of them, from any path', () => {
    for (const template of [
      ...including,
      `{% include '${path.join(dir, '.env')}' %}`,
      `{% render '${path.join(dir, 'notes.liquid')}' %}`,
    ]) {
      expect(failure(template)).toMatch(
        /^its prompt template: templates cannot include other files/,
      );
    }
  });

  it('gives liquidjs a file system with nothing in it, should a tag ever reach it', () => {
    // The engine's tags refuse first; this is the layer under them, tried on its own.
    const bare = new Liquid({ ...NO_FILE_OPTIONS, root: [dir] });
    for (const template of ["{% include '.env' %}", "{% render 'notes' %}"]) {
      let out = '';
      try {
        out = bare.parseAndRenderSync(template);
      } catch (error) {
        out = (error as Error).message;
      }
      expect(out).not.toContain(MARKER);
    }
  });
});

describe('template limits', () => {
  const pathological: Array<[string, string, RegExp]> = [
    [
      'a loop of 10^8 iterations',
      '{% for i in (1..100000000) %}{% endfor %}',
      /went past the 100,000-iteration loop limit \(settings\.limits\.templateIterations\)$/,
    ],
    [
      'nested loops',
      '{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}',
      /went past the 100,000-iteration loop limit/,
    ],
    [
      'a text doubled by assign in a loop',
      '{% assign s = "x" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
      /built a range or text of more than 4,194,304 items along the way \(settings\.limits\.templateBytes\)$/,
    ],
    [
      'a text doubled by capture in a loop',
      '{% assign s = "x" %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}',
      /produced more than 1,048,576 bytes of text \(settings\.limits\.templateBytes\)$/,
    ],
    [
      'a range turned into text',
      '{{ (1..100000000) | join: "," }}',
      /built a range or text of more than/,
    ],
    ['a huge slice', '{{ "abc" | slice: 0, 100000000000 }}', /built a range or text of more than/],
    ['a huge date padding', '{{ "now" | date: "%999999999d" }}', /built a range or text/],
    [
      'a cycle in a long loop',
      '{% for i in (1..100000000) %}{% cycle "a", "b" %}{% endfor %}',
      /went past the 100,000-iteration loop limit/,
    ],
    [
      'a tablerow of 10^8 cells',
      '{% tablerow i in (1..100000000) %}{{ i }}{% endtablerow %}',
      /went past the 100,000-iteration loop limit/,
    ],
    [
      'nested tablerows',
      '{% tablerow a in (1..3000) %}{% tablerow b in (1..3000) %}x{% endtablerow %}{% endtablerow %}',
      /^its prompt template (produced more than|went past the 100,000-iteration)/,
    ],
    [
      'a large output',
      `{% for i in (1..3000) %}${'x'.repeat(1000)}{% endfor %}`,
      /produced more than 1,048,576 bytes of text/,
    ],
  ];

  for (const [what, template, expected] of pathological) {
    it(`stops ${what} with one line naming the limit`, () => {
      const message = failure(template);
      expect(message).toMatch(expected);
      expect(message).toMatch(/^its prompt template /);
      expect(message).not.toContain('\n');
    });
  }

  it('measures output in UTF-8 bytes', () => {
    const limits = { ...DEFAULT_LIMITS, templateBytes: 10 };
    expect(renderTemplate('{{ s }}', { s: 'ééééé' }, limits)).toBe('ééééé');
    expect(() => renderTemplate('{{ s }}', { s: 'éééééé' }, limits)).toThrow(TemplateLimitError);
  });

  it('lets a document set its own limits', () => {
    const ten = { ...DEFAULT_LIMITS, templateIterations: 10 };
    expect(renderTemplate('{% for i in (1..10) %}{{ i }}{% endfor %}', {}, ten)).toBe(
      '12345678910',
    );
    expect(failure('{% for i in (1..11) %}{{ i }}{% endfor %}', ten)).toBe(
      'its prompt template went past the 10-iteration loop limit (settings.limits.templateIterations)',
    );
    // A list given as an input counts the same as a range.
    const xs = Array.from({ length: 11 }, (_, i) => i);
    expect(failure('{% for i in xs %}{{ i }}{% endfor %}', ten, { xs })).toMatch(
      /went past the 10-iteration loop limit/,
    );
  });

  it('stops a render that goes past its time', () => {
    const limits = { ...DEFAULT_LIMITS, templateMs: 20, templateIterations: 5_000_000 };
    expect(
      failure('{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}', limits),
    ).toBe('its prompt template went past the 20 ms render limit (settings.limits.templateMs)');
  });

  it('still renders what real prompts do', () => {
    const transcript = Array.from({ length: 300 }, (_, i) => ({
      from: `m${i}`,
      text: `idea ${i}`,
    }));
    const out = renderTemplate(
      '{% capture head %}Round {{ loop.round }}{% endcapture %}{{ head }}\n{% for m in loop.transcript %}{% cycle "-", "*" %} {{ m.from }}: {{ m.text | upcase }}\n{% endfor %}{{ answers | numbered }}',
      { loop: { round: 2, transcript }, answers: ['a', 'b'] },
      DEFAULT_LIMITS,
    );
    expect(out.split('\n')).toHaveLength(303);
    expect(out).toContain('* m299: IDEA 299');
    expect(out.endsWith('1. a\n2. b')).toBe(true);
  });
});

describe('plain templates', () => {
  // The engine's own options, without the bounds: what Liquid itself renders.
  const liquid = new Liquid({ strictFilters: true, ownPropertyOnly: true, ...NO_FILE_OPTIONS });
  const templates = [
    'You are a {{ style }}. You think about pictures in {{style}} terms.',
    '{{ object }}',
    'no variables at all, {braces} and } alone',
    '{{ missing }} prints nothing; {{ count }} and {{ done }} and {{ none }} print as Liquid does',
    'Literals: {{ true }} {{ nil }} {{ empty }}; tabs {{\tstyle\n}}',
    'Not plain: {{ style | upcase }} {{- object }} {{ loop.round }} {% if done %}yes{% endif %}',
    '{{ constructor }}{{ toString }}{{ __proto__ }} are not the variables own',
    'A list {{ items }} and a record {{ record }}',
    'é ✓ {{ object }} 🎨\r\n{{ style }}',
  ];
  const values: Array<Record<string, unknown>> = [
    { style: 'cubist', object: 'a lighthouse', count: 3, done: false, none: null },
    { style: '', object: '{{ style }} {% raw %}', count: -0.5, done: true },
    { style: 'x', object: 'y', items: ['a', 'b'], record: { a: 1 } },
    {},
  ];

  it('renders exactly what Liquid renders, for every kind of value', () => {
    for (const template of templates) {
      for (const vars of values) {
        expect(renderTemplate(template, vars, DEFAULT_LIMITS), template).toBe(
          liquid.parseAndRenderSync(template, { ...vars }),
        );
      }
    }
  });

  it('keeps the output limit', () => {
    expect(
      failure('{{ a }}{{ a }}', { ...DEFAULT_LIMITS, templateBytes: 10 }, { a: 'abcdef' }),
    ).toBe(
      'its prompt template produced more than 10 bytes of text (settings.limits.templateBytes)',
    );
  });
});

describe('rendering while reading a document', () => {
  it('gives up on a slow template and renders the rest as written', () => {
    const render = documentRenderer();
    expect(render('{{ item }}', { item: 'gpt' })).toBe('gpt');
    expect(render('{% for i in (1..100000000) %}{% endfor %}', {})).toBeUndefined();
  });

  it('stops rendering once its allowance is spent', () => {
    const render = documentRenderer(0, 0);
    expect(render('{{ item }}', { item: 'gpt' })).toBeUndefined();
  });
});
