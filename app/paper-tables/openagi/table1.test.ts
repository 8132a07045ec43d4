import { describe, expect, it } from 'vitest';
import type { EvalItemRecord } from '../../eval/types.ts';
import type { OpenAgiCategory } from '../../experts/openagi.ts';
import { formatTable1, table1 } from './table1.ts';

const item = (index: number, patch: Partial<EvalItemRecord>): EvalItemRecord => ({
  evalId: 'e',
  item: index,
  variant: 'rule-planner',
  jobKey: `k${index}`,
  status: 'scored',
  costUsd: 0,
  tokens: 0,
  calls: 0,
  updatedAt: 0,
  ...patch,
});

describe('OpenAGI Table 1 with a failed task', () => {
  const categoryOf = new Map<number, OpenAgiCategory>([
    [0, 'image->text'],
    [1, 'image->text'],
    [2, 'image->image'],
  ]);
  const items = [
    item(0, { score: 0.8 }),
    // A metric skipped for want of a token fails its task (it gave no score).
    item(1, { status: 'failed', error: 'scoring failed: the metric node gave no score' }),
    // An older store kept a 0 with a failed task.
    item(2, { status: 'failed', score: 0, error: 'budget exceeded' }),
  ];
  const text = formatTable1(table1(items, categoryOf), 'rule planner', {
    simulated: false,
    tasks: 3,
  });

  it('shows a cell whose every task failed as "failed", never 0.0000', () => {
    expect(text).toMatch(/^ViT\s+not in paper\s+failed \(its task\)\s+–\s+1\s+image->image$/m);
    expect(text).toMatch(/^image->image\s+ViT\s+1\s+1\s+failed \(its task\)$/m);
    expect(text).not.toMatch(/^(ViT|image->image) .*\d\.\d{4}/m);
  });

  it('counts a failed task as 0 in its metric, and says so', () => {
    expect(text).toMatch(/^BERT\s+not in paper\s+0\.4000 \[.*\], 1 failed counted as 0\s+–\s+2\s/m);
    expect(text).toContain(
      '2 of 3 tasks failed: a failed task has no score and counts as 0 in its metric and in Overall',
    );
  });
});

describe('OpenAGI Table 1 beside the paper', () => {
  const categoryOf = new Map<number, { task: number; category: OpenAgiCategory }>([
    [0, { task: 2, category: 'image->image' }],
    [1, { task: 2, category: 'image->image' }],
    [2, { task: 3, category: 'image->image' }],
  ]);
  const items = [item(0, { score: 0.2 }), item(1, { score: 0.4 }), item(2, { score: 0.5 })];

  it("averages each task's samples first, and prints the paper's figure and the difference", () => {
    const table = table1(items, categoryOf);
    const vit = table.metrics.find((m) => m.metric === 'ViT')!;
    // Task 2's mean is 0.3, task 3's 0.5: the metric is their mean, over 2 tasks, 3 samples.
    expect(vit).toMatchObject({ tasks: 2, items: 3 });
    expect(vit.mean).toBeCloseTo(0.4, 10);
    const text = formatTable1(table, 'gpt-3.5-turbo', {
      simulated: false,
      tasks: 2,
      samples: 3,
      paper: 'GPT-3.5-turbo zero-shot',
    });
    expect(text).toContain('column "GPT-3.5-turbo zero-shot"');
    expect(text).toMatch(/^ViT\s+0\.2437\s+0\.4000 \[.*\]\s+\+0\.1563\s+2 \(3 samples\)\s/m);
    expect(text).toMatch(/^CLIP\s+0\.0000\s+no task\s+–\s+0\s/m);
  });

  it('names the ViT row a distance when its definition says lower is better', () => {
    const definitions = new Map([[0, { kind: 'vit-distance', better: 'lower' as const }]]);
    const text = formatTable1(table1(items, categoryOf, definitions), 'p', {
      simulated: false,
      tasks: 2,
    });
    expect(text).toMatch(/^ViT distance \(lower is better\)\s/m);
    expect(
      formatTable1(table1(items, categoryOf), 'p', { simulated: false, tasks: 2 }),
    ).not.toContain('distance');
  });
});
