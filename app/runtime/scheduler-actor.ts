/**
 * The actor that runs a scheduler machine (the graph, a group, one stage of a loop): the
 * compiled config's `running` state — `schedule` on entry, `complete` then `schedule` on each
 * task or child done, a failure raised or ending the run, final once `allDone` — interpreted
 * directly as XState actor logic instead of through a state machine. It has one state and three
 * transitions, so XState's general machinery (state configurations, microsteps, a snapshot and
 * a context copy per step) cost more than the scheduling itself; a loop starts one of these for
 * each of its stages in every round, which made them a large part of the engine's CPU per
 * answer. Loop machines (built by each loop node's spec) stay XState machines and invoke these
 * like any actor; their children are spawned and stopped with XState's own actors, so done and
 * error events, stopping and the order of effects are XState's.
 */

import { type AnyActorLogic, type AnyActorRef, type AnyActorScope, createActor } from 'xstate';

/** What starting the ready nodes asks for: tasks to run and child machines to spawn. */
export interface ScheduleWork<C> {
  tasks: Array<(report: (event: { type: string }) => void) => void>;
  children: Array<{ id: string; src: string; input: C }>;
}

/** A scheduler's own guard and actions (app/runtime/machine-runtime.ts), closed over its table. */
export interface SchedulerOps<C> {
  schedule(context: C, event: { type: string; [key: string]: unknown }): ScheduleWork<C>;
  complete(context: C, event: { type: string; [key: string]: unknown }): Partial<C>;
  allDone(context: C): boolean;
  /** At the top: records the failure that ends the run. Inside: absent, the error is raised. */
  fail?(event: { type: string; [key: string]: unknown }): void;
}

interface SchedulerSnapshot<C> {
  status: 'active' | 'done' | 'error' | 'stopped';
  /** The state of the compiled config the actor is in (`running`, `done`, `succeeded`, `failed`). */
  value: string;
  context: C;
  output: C | undefined;
  error: unknown;
  /** Running child machines by id (shared by every snapshot of one actor). */
  children: Map<string, AnyActorRef>;
}

const DONE = 'xstate.done.actor.';
const ERROR = 'xstate.error.actor.';

/**
 * Actor logic for a scheduler config. `logicOf` gives the logic of a child machine by actor name
 * (`scope:…`, `loop:…`); `isRoot` says whether it runs the whole graph (final `succeeded` or
 * `failed`, no output) or a scope inside (final `done`, its context as output).
 * `C` is the scope's context (ScopeContext in machine-runtime.ts), which this logic only passes
 * to `ops` and to the child machines.
 */
export function schedulerLogic<C>(
  ops: SchedulerOps<C>,
  logicOf: (src: string) => AnyActorLogic,
  isRoot: boolean,
): AnyActorLogic {
  /** Starts what `schedule` found ready, then ends the scope if every node is done. */
  const advance = (
    snapshot: SchedulerSnapshot<C>,
    event: { type: string; [key: string]: unknown },
    scope: AnyActorScope,
    running: boolean,
  ): SchedulerSnapshot<C> => {
    const work = ops.schedule(snapshot.context, event);
    const report = (e: { type: string }) => scope.self.send(e);
    // As XState runs a machine's actions: tasks at once when the actor runs (deferred to its
    // start otherwise), children created now and started after the step, in order.
    for (const task of work.tasks) {
      if (running) task(report);
      else scope.defer(() => task(report));
    }
    for (const child of work.children) {
      const actor = createActor(logicOf(child.src), {
        id: child.id,
        parent: scope.self,
        src: child.src,
        input: child.input,
      } as never) as AnyActorRef;
      snapshot.children.set(child.id, actor);
      scope.defer(() => {
        if ((actor as unknown as { _processingStatus: number })._processingStatus !== STOPPED)
          actor.start();
      });
    }
    if (!ops.allDone(snapshot.context)) return snapshot;
    return finish(snapshot, isRoot ? 'succeeded' : 'done', scope);
  };

  /** A final state: XState stops a machine's remaining children when it reaches one. */
  const finish = (
    snapshot: SchedulerSnapshot<C>,
    value: string,
    scope: AnyActorScope,
  ): SchedulerSnapshot<C> => {
    stopChildren(snapshot, scope);
    return {
      ...snapshot,
      status: 'done',
      value,
      output: isRoot ? undefined : snapshot.context,
    };
  };

  return {
    config: { scheduler: true },
    getInitialSnapshot(scope: AnyActorScope, input: C): SchedulerSnapshot<C> {
      const snapshot: SchedulerSnapshot<C> = {
        status: 'active',
        value: 'running',
        context: input,
        output: undefined,
        error: undefined,
        children: new Map(),
      };
      return advance(snapshot, { type: 'xstate.init' }, scope, false);
    },
    transition(
      snapshot: SchedulerSnapshot<C>,
      event: { type: string; [key: string]: unknown },
      scope: AnyActorScope,
    ): SchedulerSnapshot<C> {
      if (snapshot.status !== 'active') return snapshot;
      const type = event.type;
      if (type === 'xstate.stop') {
        stopChildren(snapshot, scope);
        return { ...snapshot, status: 'stopped' };
      }
      const childDone = type.startsWith(DONE);
      if (type === 'task.done' || childDone) {
        if (childDone) snapshot.children.delete(type.slice(DONE.length));
        // A new context each time, as XState's `assign` makes: a task holds the one it began with.
        const context = { ...snapshot.context, ...ops.complete(snapshot.context, event) };
        return advance({ ...snapshot, context }, event, scope, true);
      }
      const childFailed = type.startsWith(ERROR);
      if (type === 'task.failed' || childFailed) {
        if (childFailed) snapshot.children.delete(type.slice(ERROR.length));
        if (!ops.fail) throw event.error;
        ops.fail(event);
        return finish(snapshot, 'failed', scope);
      }
      return snapshot;
    },
    // As XState starts a machine: the children its first step spawned start before that step's
    // tasks (deferred until now) run.
    start(snapshot: SchedulerSnapshot<C>): void {
      for (const child of snapshot.children.values()) {
        if (child.getSnapshot().status === 'active') child.start();
      }
    },
    getPersistedSnapshot: (snapshot: SchedulerSnapshot<C>) => snapshot,
  } as AnyActorLogic;
}

/** XState's `ProcessingStatus.Stopped`: a child stopped before its start is not started. */
const STOPPED = 2;

function stopChildren<C>(snapshot: SchedulerSnapshot<C>, scope: AnyActorScope): void {
  if (snapshot.children.size === 0) return;
  const children = [...snapshot.children.values()];
  snapshot.children.clear();
  scope.defer(() => {
    for (const child of children) scope.stopChild(child);
  });
}
