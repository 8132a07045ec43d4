import { describe, expect, it } from 'vitest';
import { parseQueueUrl } from './connection.ts';
import { formatRate, parseRate, parseRates, spacing } from './rate-limit.ts';
import { canonicalJson, loadQueueSecret, signatureProblem } from './trust.ts';
import { parseJobResult, parseQueuedJob, queuedJob, queueJobId, signedResult } from './wire.ts';

const SECRET = 'a-test-secret-of-32-characters!!';

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
  });
});

describe('signed jobs', () => {
  const job = {
    evalId: 'e1',
    item: 0,
    variant: 'default',
    jobKey: 'k1',
    documentText: '{}',
    inputs: { question: 'What is 2 times 3?' },
    blobs: [],
    mode: 'live' as const,
    providerOverrides: { local: { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'LOCAL_VAR' } },
    cassetteText: '{"entries":[]}',
  };

  it('carry profile names and a cassette hash, never URLs, key variables or the cassette', () => {
    const signed = queuedJob(job, SECRET);
    const text = JSON.stringify(signed);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('LOCAL_VAR');
    expect(text).not.toContain('entries');
    expect(parseQueuedJob(signed, SECRET)).toMatchObject({ profiles: ['local'], item: 0 });
  });

  it('carry the repeat of an item that runs several times (--repeats)', () => {
    const signed = queuedJob({ ...job, repeat: 2, jobKey: 'k1r2' }, SECRET);
    expect(parseQueuedJob(signed, SECRET)).toMatchObject({ item: 0, repeat: 2 });
    expect(parseQueuedJob(queuedJob(job, SECRET), SECRET).repeat).toBeUndefined();
  });

  it('are refused unsigned, mis-signed, signed with another secret or carrying provider settings', () => {
    const signed = queuedJob(job, SECRET);
    const { sig: _sig, ...unsigned } = signed;
    expect(() => parseQueuedJob(unsigned, SECRET)).toThrow(/unsigned/);
    expect(() => parseQueuedJob({ ...signed, item: 3 }, SECRET)).toThrow(/mis-signed/);
    expect(() => parseQueuedJob(signed, `${SECRET}x`)).toThrow(/mis-signed/);
    expect(() =>
      parseQueuedJob({ ...signed, providerOverrides: { local: { baseUrl: 'x' } } }, SECRET),
    ).toThrow(/provider settings of its own \(providerOverrides\)/);
    expect(() => parseQueuedJob({ evalId: 'e1', item: -1 }, SECRET)).toThrow(/unsigned/);
    // A result is signed for another purpose: it never passes for a job.
    const result = signedResult(
      {
        runId: 'r1',
        status: 'succeeded',
        exportKey: 'k',
        exportSha256: '0'.repeat(64),
        latencyMs: 1,
        worker: 'w',
      },
      SECRET,
    );
    expect(parseJobResult(result, SECRET).runId).toBe('r1');
    expect(signatureProblem(result, SECRET, 'job')).toMatch(/mis-signed/);
    expect(() => parseJobResult({ ...result, status: 'failed' }, SECRET)).toThrow(/mis-signed/);
  });

  it('sign the same payload the same whatever the order of its fields', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
  });

  it('need a secret of 16 characters or more, and never say it', () => {
    expect(() => loadQueueSecret(undefined, {})).toThrow(
      /set SOCIETY_QUEUE_SECRET or give --queue-secret-file FILE/,
    );
    expect(() => loadQueueSecret(undefined, { SOCIETY_QUEUE_SECRET: 'short-one' })).toThrow(
      /^SOCIETY_QUEUE_SECRET: the queue secret is shorter than 16 characters/,
    );
    expect(() => loadQueueSecret('/nonexistent/queue.secret')).toThrow(/cannot read it \(ENOENT\)/);
    expect(loadQueueSecret(undefined, { SOCIETY_QUEUE_SECRET: ` ${SECRET}\n` })).toBe(SECRET);
  });
});
