import { describe, expect, it } from 'vitest';
import { csvCell, heatmapCsv, seriesCsv } from './csv.ts';
import type { HeatMap, Series } from './reduce.ts';
import { heatColour } from './scale.ts';
import { heatmapSvg } from './svg.ts';
import { formatHeatmap, formatSeries } from './text.ts';

const map: HeatMap = {
  kind: 'chat',
  agents: ['ann', 'bob <b>', 'cy', 'dee'],
  counts: [
    [0, 8, 1, 0],
    [5, 0, 0, 0],
    [0, 2, 0, 0],
    [0, 0, 0, 0],
  ],
  total: 16,
};

const series: Series[] = [
  {
    name: 'resources',
    label: 'Resources',
    unit: 'coins',
    kind: 'number',
    keys: ['ann', 'bob'],
    points: [
      { x: 1, values: { ann: 2, bob: 1.23456 } },
      { x: 2, values: { ann: 5, bob: null } },
      { x: 3, values: { ann: 3 } },
    ],
  },
  {
    name: 'topic',
    label: 'topic',
    kind: 'category',
    keys: ['yard'],
    points: [
      { x: 1, values: { yard: 'games' } },
      { x: 2, values: { yard: 'games' } },
      { x: 3, values: { yard: 'food, "fresh"' } },
    ],
  },
];

describe('the heat map as text', () => {
  it('aligns a table with shades, totals and a summary', () => {
    const text = formatHeatmap(map, ['chat', 'wave']);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'chat interactions: initiator (rows) → receiver (columns), 16 in all (other kinds: wave; see --kind)',
    );
    expect(lines[1]).toBe('          ann  bob <b>   cy  dee  sent');
    expect(lines[2]).toBe('ann         ·      █ 8  ░ 1    ·     9');
    expect(lines[3]).toBe('bob <b>   ▓ 5        ·    ·    ·     5');
    expect(lines[6]).toBe('received    5       10    1    0    16');
    expect(text).toContain('strongest: ann → bob <b> (8)');
    expect(text).toContain('most mutual: ann ↔ bob <b> (8 and 5)');
    expect(text).toContain('no chat: dee');
  });

  it('says so plainly when the run has none', () => {
    const empty = { kind: 'chat', agents: [], counts: [], total: 0 };
    expect(formatHeatmap(empty, [])).toBe('no interactions in this run\n');
    expect(formatHeatmap(empty, ['wave'])).toBe(
      'no "chat" interactions in this run (other kinds: wave; see --kind)\n',
    );
  });

  it('shows those who could take part as a row and a column each before anyone does', () => {
    const quiet = {
      kind: 'chat',
      agents: ['ann', 'bob'],
      counts: [
        [0, 0],
        [0, 0],
      ],
      total: 0,
    };
    const lines = formatHeatmap(quiet, []).trimEnd().split('\n');
    expect(lines[0]).toBe('chat interactions: initiator (rows) → receiver (columns), 0 in all');
    expect(lines[2]).toMatch(/^ann\s+·\s+·\s+0$/);
    expect(lines.at(-1)).toBe('no interactions yet among these 2');
  });
});

describe('series as text', () => {
  it("prints each key's last value and range, or a category's changes", () => {
    expect(formatSeries(series)).toBe(
      [
        'Resources [resources] (coins) · x 1–3 · 2 keys',
        '  ann  last 3  min 2  max 5',
        '  bob  last 1.235  min 1.235  max 1.235',
        'topic · x 1–3 · 1 key',
        '  yard  last "food, \\"fresh\\""  2 distinct, 1 change',
        '',
      ].join('\n'),
    );
  });
});

describe('CSV', () => {
  it('writes the heat map as a matrix with initiators in rows', () => {
    expect(heatmapCsv(map).split('\r\n')).toEqual([
      'chat: initiator \\ receiver,ann,bob <b>,cy,dee',
      'ann,0,8,1,0',
      'bob <b>,5,0,0,0',
      'cy,0,2,0,0',
      'dee,0,0,0,0',
      '',
    ]);
  });

  it('writes series long, quoting text and keeping a missing value empty', () => {
    expect(seriesCsv(series).split('\r\n')).toEqual([
      'series,x,key,value',
      'resources,1,ann,2',
      'resources,1,bob,1.23456',
      'resources,2,ann,5',
      'resources,2,bob,',
      'resources,3,ann,3',
      'topic,1,yard,games',
      'topic,2,yard,games',
      'topic,3,yard,"food, ""fresh"""',
      '',
    ]);
  });

  it('keeps a name a spreadsheet would run as a formula from running', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell(-3)).toBe('-3');
  });
});

describe('the heat map as SVG', () => {
  const svg = heatmapSvg(map);

  it('is one self-contained image with escaped labels, a cell per pair and a scale', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|@import/);
    expect(svg).toContain('>bob &lt;b&gt;</text>');
    expect(svg.match(/<rect x="\d+" y="\d+" width="40"/g)).toHaveLength(16);
    expect(svg).toContain('<title>ann → bob &lt;b&gt;: 8</title>');
    expect(svg).toContain('id="heatmap-scale"');
    // The darkest colour is the largest count's; an empty cell is not coloured.
    expect(svg).toContain(`fill="${heatColour(8, 8)}"`);
    expect(heatColour(0, 8)).not.toBe(heatColour(1, 8));
  });

  it('draws a grid with no scale when nobody has interacted yet', () => {
    const svg = heatmapSvg({
      kind: 'chat',
      agents: ['ann', 'bob'],
      counts: [
        [0, 0],
        [0, 0],
      ],
      total: 0,
    });
    expect(svg.match(/<rect x="\d+" y="\d+" width="40"/g)).toHaveLength(4);
    expect(svg).not.toContain('heatmap-scale');
    expect(svg).toContain('>none</text>');
  });

  it('says there is nothing to draw for an empty map', () => {
    expect(heatmapSvg({ kind: 'chat', agents: [], counts: [], total: 0 })).toContain(
      'no interactions',
    );
  });
});
