import { describe, expect, it } from 'vitest';
import type { EvalItemRecord } from '../../../eval/types.ts';
import type { OpenAgiCategory } from '../../../experts/openagi.ts';
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
    expect(text).toMatch(/^ViT\s+failed \(its task\)\s+1\s+image->image$/m);
    expect(text).toMatch(/^image->image\s+ViT\s+1\s+1\s+failed \(its task\)$/m);
    expect(text).not.toMatch(/^(ViT|image->image) .*\d\.\d{4}/m);
  });

  it('counts a failed task as 0 in its metric, and says so', () => {
    expect(text).toMatch(/^BERT\s+0\.4000 \[.*\], 1 failed counted as 0\s+2\s/m);
    expect(text).toContain(
      '2 of 3 tasks failed: a failed task has no score and counts as 0 in its metric and in Overall',
    );
  });
});
