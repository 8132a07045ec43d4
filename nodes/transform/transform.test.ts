import { describe, expect, it } from 'vitest';
import { templateSlots } from '../../app/node-sdk/template.ts';
import { edge, graph, input, node, output, problems, run } from '../../tests/support/graphs.ts';

/** One transform over inputs `a` (text) and `n` (number), read as `as`. */
function shaping(template: string, as: string) {
  let names: string[] = [];
  try {
    names = templateSlots(template);
  } catch {
    // A broken template has no slots; the compiler reports it.
  }
  return graph(
    [
      input('a'),
      input('n', { modality: 'number' }),
      node('t', 'transform', { template, output: as }),
      output('o'),
    ].filter((n) => n.type !== 'input' || names.includes(n.id)),
    [...names.map((name) => edge(`${name}.value`, `t.${name}`)), edge('t.value', 'o.value')],
  );
}

const shape = async (template: string, as = 'text', inputs: Record<string, unknown> = {}) =>
  run(shaping(template, as), { inputs: { a: 'x,y', n: 2, ...inputs } });

describe('transform node', () => {
  it('renders a Liquid template with filters and loops', async () => {
    const { outputs } = await shape(
      '{{ a | upcase }}: {% assign parts = a | split: "," %}{% for p in parts %}[{{ p }}]{% endfor %} ×{{ n | plus: 1 }}',
    );
    expect(outputs.o).toBe('X,Y: [x][y] ×3');
  });

  it('reads the result as JSON', async () => {
    const { outputs } = await shape('{ "label": {{ a | json }}, "count": {{ n }} }', 'json');
    expect(outputs.o).toEqual({ label: 'x,y', count: 2 });
  });

  it('reads the result as a number', async () => {
    expect((await shape('{{ n | times: 10 }}', 'number')).outputs.o).toBe(20);
  });

  it('reads the result as lines, skipping blank ones', async () => {
    const { outputs } = await shape(
      '{% assign p = a | split: "," %}{% for x in p %}{{ x }}\n\n{% endfor %}',
      'lines',
    );
    expect(outputs.o).toEqual(['x', 'y']);
  });

  it('fails the run, naming the node, when the text is not what was asked for', async () => {
    const json = await shape('not json {{ a }}', 'json');
    expect(json.error).toMatch(/^node "t": the template did not produce JSON/);
    const number = await shape('{{ a }}', 'number');
    expect(number.error).toBe('node "t": the template did not produce a number: "x,y"');
  });

  it('never runs JavaScript written in a template', async () => {
    // Call syntax is not Liquid: the graph does not compile.
    const found = await problems(shaping("{{ constructor.constructor('return 1')() }}", 'text'));
    expect(found[0]).toMatchObject({ node: 't', path: 'nodes[0].data.template' });
    expect(found[0]?.message).toMatch(/^template error/);
    // Reaching for a value's prototype finds nothing.
    const { outputs } = await shape(
      '[{{ a.constructor.name }}{{ a.constructor.constructor }}{{ a.__proto__ }}]',
    );
    expect(outputs.o).toBe('[]');
  });

  it('treats text from inputs as data, not as template code', async () => {
    const { outputs } = await shape('<{{ a }}>', 'text', { a: "{{ 'injected' | upcase }}" });
    expect(outputs.o).toBe("<{{ 'injected' | upcase }}>");
  });
});
