/**
 * The mindstorm's machine: init → round (repeated) → revise → gather → decide, each stage a
 * scheduler of the nodes inside that run at it. Pure JSON, built with what the compiler offers
 * (app/node-sdk/loop.ts), so `society inspect` prints exactly what runs.
 */
import type { LoopStatesBuilder, StateConfig } from '../../app/node-sdk/loop.ts';
import type { Stage } from '../../app/schema/document.ts';
import { effectiveRights, type MindstormData } from './rights.ts';

export function mindstormStates(
  data: MindstormData,
  build: LoopStatesBuilder,
): { initial: string; states: StateConfig } {
  const rights = effectiveRights(data);
  const { actions } = build;
  /** A state that runs one stage's nodes, then goes on to `next`. */
  const stage = (name: Stage, next: string, exclude?: string): StateConfig => ({
    invoke: { ...build.runStage(name, exclude), onDone: { target: next, actions: actions.stage } },
  });

  const after: string[] = [];
  if (rights.rtc && data.members.length > 0) after.push('revise');
  if (build.has('gather')) after.push('gather');
  if (build.has('decide') || (rights.rte && data.leader)) after.push('decide');
  after.push('done');

  const states: StateConfig = {};
  if (build.has('init')) states.init = stage('init', 'round');
  states.round = {
    entry: actions.begin,
    invoke: { ...build.runStage('round'), onDone: { target: 'between', actions: actions.end } },
  };
  states.between = {
    always: [{ guard: build.continues(data.maxRounds), target: 'round' }, { target: after[0] }],
  };
  after.forEach((name, i) => {
    const next = after[i + 1]!;
    if (name === 'revise') {
      // Right to change: each member may revise each round's answer.
      states.revise = {
        invoke: { ...build.runStep('revise'), onDone: { target: next, actions: actions.step } },
      };
    } else if (name === 'gather') {
      states.gather = stage('gather', next);
    } else if (name === 'decide') {
      // Under the right to execute, members vote on the leader's question instead of the leader
      // answering it; other decide-stage nodes still run afterwards as usual.
      const voting = rights.rte && data.leader;
      const others = build.members('decide', data.leader);
      if (!voting) states.decide = stage('decide', next);
      else {
        states.decide = {
          invoke: {
            ...build.runStep('vote'),
            onDone: { target: others.length > 0 ? 'decideRest' : next, actions: actions.step },
          },
        };
        if (others.length > 0) states.decideRest = stage('decide', next, data.leader);
      }
    } else {
      states.done = { type: 'final', entry: actions.finish };
    }
  });
  return { initial: build.has('init') ? 'init' : 'round', states };
}
