/**
 * Pure computations a node hands the engine (`NodeContext.compute`): a function of data the
 * document supplies (rules, tables) that may be cheap or, for a hostile or careless document,
 * take seconds. The engine runs a light one at once, and a heavy one on a worker thread within
 * the run's time limit (`settings.limits.computeMs`) and a heap limit, so the process keeps
 * answering and Stop ends it at once. A task lives in a module of its node's folder and is
 * found there again by a worker thread, by the module's URL and its export name.
 */

/** A pure computation a node's executor may hand the engine. */
export interface ComputeTask<I, O> {
  /** Marks a value as a task, for the worker thread that imports it. */
  readonly computeTask: true;
  /** The URL of the module that exports it (its `import.meta.url`). */
  readonly module: string;
  /** The name it is exported under in that module. */
  readonly name: string;
  /**
   * The computation: a pure function of its input, which, like its result, is plain data (it
   * is copied to and from a thread). It throws with one line about the input when it must fail.
   */
  readonly run: (input: I) => O;
  /**
   * A rough count of the steps `run` will take for this input (rule parts × keys, say): at most
   * LIGHT_TASK_STEPS runs at once, on the caller's thread, more on a worker thread.
   */
  readonly steps: (input: I) => number;
}

/**
 * Steps a task may take on the caller's thread: a few milliseconds at most, less than a thread
 * hop would cost, so the small rules of real societies never pay one.
 */
export const LIGHT_TASK_STEPS = 10_000;

/**
 * Defines a task; `module` is the defining module's `import.meta.url` and `name` the name it is
 * exported under there (a worker thread imports it by both).
 */
export function defineComputeTask<I, O>(task: {
  module: string;
  name: string;
  run: (input: I) => O;
  steps: (input: I) => number;
}): ComputeTask<I, O> {
  return Object.freeze({ computeTask: true as const, ...task });
}

/** Whether a value is a task defined with defineComputeTask. */
export function isComputeTask(value: unknown): value is ComputeTask<unknown, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { computeTask?: unknown }).computeTask === true &&
    typeof (value as { run?: unknown }).run === 'function'
  );
}
