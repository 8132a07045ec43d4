import { describe, expect, it } from 'vitest';
import { parseQueueUrl } from './connection.ts';
import { formatRate, parseRate, parseRates, spacing } from './rate-limit.ts';
import { parseQueuedJob, queueJobId } from './wire.ts';

describe('--rate', () => {
  it('reads PROVIDER=N/UNIT and spaces calls evenly', () => {
    expect(parseRate('openai=60/min')).toEqual(['openai', { max: 60, perMs: 60_000 }]);
    expect(spacing(parseRate('openai=60/min')[1])).toBe(1000);
    expect(spacing(parseRate('hf=2/s')[1])).toBe(500);
    expect(formatRate(parseRate('local=3000/h')[1])).toBe('3000/hour');
  });

  it('keeps the stricter of two limits on one provider', () => {
    expect(parseRates(['openai=600/min', 'openai=5/s', 'hf=1/s'])).toEqual({
      openai: { max: 5, perMs: 1000 },
      hf: { max: 1, perMs: 1000 },
    });
  });

  it('names what is wrong', () => {
    for (const bad of ['openai', 'openai=60', 'openai=0/min', 'openai=60/fortnight', '=1/s'])
      expect(() => parseRate(bad)).toThrow(/give PROVIDER=N\/UNIT, e\.g\. openai=60\/min/);
  });
});

describe('--queue', () => {
  it('takes redis:// and rediss:// URLs and never shows their password', () => {
    expect(parseQueueUrl('redis://:hunter2secret@queue:6379').shown).toBe('redis://queue:6379');
    expect(parseQueueUrl('rediss://queue:6380/2').shown).toBe('rediss://queue:6380/2');
    expect(() => parseQueueUrl('http://queue:6379')).toThrow(
      /give a redis:\/\/ or rediss:\/\/ URL/,
    );
    expect(() => parseQueueUrl('queue:6379')).toThrow(/redis:\/\//);
  });
});

describe('queued jobs', () => {
  it('get one id per eval and job key, and are checked on arrival', () => {
    const a = queueJobId({ evalId: 'e1', jobKey: 'k1' });
    expect(a).toBe(queueJobId({ evalId: 'e1', jobKey: 'k1' }));
    expect(a).not.toBe(queueJobId({ evalId: 'e2', jobKey: 'k1' }));
    expect(a).toMatch(/^job-[0-9a-f]{32}$/);
    expect(() => parseQueuedJob({ evalId: 'e1', item: -1 })).toThrow(/not an eval job \(item:/);
  });
});
