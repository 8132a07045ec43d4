/**
 * The terminal debugger and a branch not taken: a node that is skipped never starts, so a
 * breakpoint before it never holds — the stepper says so, refuses a new one, and `p` says why
 * the node made no call.
 */
import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { attachStepper, describeBreakpoint, parseBreakpoint } from '../app/cli/stepper.ts';
import { start } from './support/graphs.ts';

const TIE_JUDGE = JSON.parse(
  readFileSync(new URL('../templates/tie-judge.society.json', import.meta.url), 'utf8'),
);

describe('society run --step on a branch not taken', () => {
  it('says a breakpoint on a skipped node will not hold, refuses a new one and prints why', async () => {
    // Simulated voters both answer yes: no tie, so the judge is skipped.
    const run = await start(TIE_JUDGE, {
      simulate: true,
      inputs: { question: 'Close the bridge?' },
      breakpoints: [{ node: 'judge' }, { node: 'decision' }],
    });
    const out = new PassThrough();
    let said = '';
    out.on('data', (d) => {
      said += d;
    });
    attachStepper(run, out, Readable.from(['p judge\nb node:judge\np\nb event:node.skipped\nc\n']));
    const result = await run.result;
    expect(result.status).toBe('succeeded');
    expect(said).toContain(
      'breakpoint node:judge will not hold: judge was skipped (route.tie not taken',
    );
    expect(said).toContain('⏸ breakpoint: before node decision starts');
    expect(said).toMatch(/judge was skipped \(route\.tie not taken: .+\): it made no model call/);
    expect(said).toMatch(/not added: judge was skipped .+ and will not start in this run/);
    expect(said).toContain('skipped: judge');
    expect(said).toContain('breakpoints: node:judge, node:decision, event:node.skipped');
  });
});

describe('terminal breakpoints on reports', () => {
  it('reads report:KIND as a breakpoint on that kind of report alone, and says it back', () => {
    const b = parseBreakpoint('report:tally');
    expect(b).toEqual({ event: 'report', report: 'tally' });
    expect(describeBreakpoint(b)).toBe('report:tally');
    expect(describeBreakpoint(parseBreakpoint('event:report'))).toBe('event:report');
    expect(() => parseBreakpoint('report:')).toThrow(/needs a value/);
  });
});

describe('terminal breakpoints on rounds', () => {
  it('reads round:N for every copy of a loop and round:N@LOOP#K for one copy, and says them back', () => {
    expect(parseBreakpoint('round:2')).toEqual({ round: 2 });
    const one = parseBreakpoint('round:2@artists#3/talk');
    expect(one).toEqual({ round: 2, loop: 'artists#3/talk' });
    expect(describeBreakpoint(one)).toBe('round:2@artists#3/talk');
    expect(() => parseBreakpoint('round:x@artists#3/talk')).toThrow(/round:x must be a round/);
  });
});
