/**
 * Starting and steering runs through the API; ./run-feed.ts folds their pushed events into the
 * view.
 */
import type { ApiParams } from '../../app/api/contract.ts';
import { ApiError, api } from '../api.ts';
import { readDocument } from '../model/document.ts';
import { heldMessage } from '../model/held.ts';
import { collectParams } from '../model/params.ts';
import { applyEvents, idleRun, startingRun } from '../model/run.ts';
import { fieldValue, runInputFields } from '../model/run-inputs.ts';
import {
  currentDocument,
  documentNodes,
  loadDocument,
  notify,
  unlessUnsaved,
  useEditor,
} from '../store.ts';
import {
  askBeyondCassette,
  refusalNotice,
  type StartChecks,
  withSpendConsent,
  withStartConsent,
} from './consent.ts';
import { useDebug } from './debugState.ts';
import { applyHeldToolEdit } from './HeldToolCall.tsx';
import { applyHeldToolResultEdit } from './HeldToolResult.tsx';
import { clearEarlyEvents, earlyEvents, watchRuns } from './run-feed.ts';

const get = useEditor.getState;
const set = useEditor.setState;

/** The run's inputs from the form, typed by each input node's modality. */
export function collectInputs(): {
  inputs: Record<string, unknown>;
  problems: string[];
  /** Each field's problem by input name, shown under the field. */
  fields: Record<string, string>;
} {
  const { inputValues } = get();
  const nodes = documentNodes();
  const inputs: Record<string, unknown> = {};
  const fields: Record<string, string> = {};
  for (const field of runInputFields(nodes)) {
    const { name, modality } = field;
    // The document's example when the person left the field as it came (see fieldValue).
    const text = fieldValue(field, inputValues);
    if (text === '') {
      // A person's answer may wait until the run asks; an input with a default takes it.
      if (!field.human && !field.hasDefault)
        fields[name] = `Give a value for ${name} before running`;
      continue;
    }
    if (modality === 'json' || modality.startsWith('list<')) {
      try {
        inputs[name] = JSON.parse(text);
      } catch {
        fields[name] = `input "${name}" must be JSON`;
      }
    } else if (modality === 'number') {
      const n = Number(text);
      if (Number.isNaN(n)) fields[name] = `input "${name}" must be a number`;
      else inputs[name] = n;
    } else if (modality === 'boolean') inputs[name] = text === 'true';
    else inputs[name] = text;
  }
  return { inputs, problems: Object.values(fields), fields };
}

function breakpointList() {
  const { breakpoints } = get();
  return [
    ...breakpoints.nodes.map((node) => ({ node })),
    ...(breakpoints.round
      ? [
          breakpoints.roundLoop
            ? { round: breakpoints.round, loop: breakpoints.roundLoop }
            : { round: breakpoints.round },
        ]
      : []),
    ...(breakpoints.tools ? [{ tool: '*' }] : []),
    ...(breakpoints.toolResults ? [{ toolResult: '*' }] : []),
  ];
}

export function isActive(status: string): boolean {
  return status === 'starting' || status === 'running' || status === 'paused';
}

/**
 * How a run's calls are answered, as the person chose it: `replay` answers from the template's
 * cassette and calls nothing, `simulated` makes labelled answers up, `live` calls the models
 * with the person's keys (asking first when its estimate is above the threshold in Settings).
 */
export type RunMode = 'replay' | 'simulated' | 'live';

/** What a run would be started with: the document, its inputs and parameters from the form. */
function runRequest(): Omit<ApiParams<'run.start'>, 'mode'> | null {
  const { inputs, problems: inputProblems, fields } = collectInputs();
  const { meta, paramValues } = get();
  const { params, problems: paramProblems } = collectParams(meta.params, paramValues);
  const problems = [...paramProblems, ...inputProblems];
  useDebug.setState({ inputProblems: fields });
  if (problems.length) {
    // Nothing starts and nothing is recorded: the Inputs tab shows the field to fill.
    notify('error', problems.join('; '));
    set({ runTab: 'inputs' });
    const first = Object.keys(fields)[0];
    if (first !== undefined)
      requestAnimationFrame(() => document.getElementById(`run-input-${first}`)?.focus());
    return null;
  }
  return {
    document: currentDocument() as unknown as Record<string, unknown>,
    inputs,
    ...(Object.keys(params).length ? { params } : {}),
  };
}

/**
 * Starts a run the way the person asked: a template's cassette, simulated, or live (asking
 * first when its estimate is above the threshold in Settings). `allowBudgetStop` runs a
 * document whose budget is below its estimate anyway: it stops at the budget.
 */
export async function startRun(
  mode: RunMode,
  options: { allowBudgetStop?: boolean } = {},
): Promise<void> {
  if (isActive(get().run.status)) return;
  const request = runRequest();
  if (!request) return;
  const { template } = get();
  if (mode === 'replay' && !template?.hasCassette) {
    notify('error', 'This document has no cassette to replay: use Run simulated or Run live');
    return;
  }
  const what = mode === 'replay' ? 'Replay' : 'Run';
  const start = (costConfirmed: boolean) =>
    api().call('run.start', {
      ...request,
      mode,
      ...(mode === 'replay' && template ? { replayTemplate: template.file } : {}),
      costConfirmed,
      allowBudgetStop: options.allowBudgetStop === true,
      breakpoints: breakpointList(),
    });
  const hosts = () =>
    api().call('run.hosts', { document: request.document, params: request.params ?? {} });
  await launch(
    (asking) =>
      withStartConsent(
        start,
        {
          estimate: () =>
            api().call('run.estimate', {
              document: request.document,
              inputs: request.inputs ?? {},
              params: request.params ?? {},
            }),
          hosts,
        },
        asking,
      ),
    what,
    (error) => {
      if (error.reason) {
        refused(error, what, {
          simulated: () => void startRun('simulated'),
          anyway: () => void startRun(mode, { allowBudgetStop: true }),
        });
        return true;
      }
      // A replay the cassette cannot answer is refused before it starts: nothing ran, and the
      // person picks one of the runs that can answer it.
      if (mode !== 'replay') return false;
      offerOtherRuns(error.message);
      return true;
    },
  );
}

function offerOtherRuns(message: string): void {
  set({ run: idleRun() });
  notify('error', `Replay not started: ${message}`, [
    { label: 'Run live', testId: 'notice-run-live', run: () => void startRun('live') },
    {
      label: 'Run simulated',
      testId: 'notice-run-simulated',
      run: () => void startRun('simulated'),
    },
  ]);
}

/**
 * Shows a run being asked for, then follows its pushed events. Events can arrive before the
 * answer that names the run, so they wait in `early` until then. `request` answers null when
 * the person said no (to the estimate); `onRefused` answers true when it has shown the person
 * why the run was refused and what to do instead.
 */
/** Counts launches, so one the person answered late never overwrites a newer one's panel. */
let launches = 0;

async function launch(
  request: (asking: (waiting: boolean) => void) => Promise<{
    runId: string;
    parentRunId?: string;
    forkSeq?: number;
    warnings?: string[] | undefined;
  } | null>,
  what: string,
  onRefused?: (error: ApiError) => boolean,
): Promise<string | null> {
  watchRuns();
  clearEarlyEvents();
  useDebug.setState({ draft: null, contextInstance: null, contextCall: null });
  const before = { run: get().run, runTab: get().runTab };
  const mine = ++launches;
  const starting = () =>
    set({ run: startingRun(documentNodes().map((n) => n.id)), runTab: 'transcript' });
  starting();
  // While the person is asked (hosts to allow), nothing is starting: the panel shows what it
  // showed, with no Stop that would stop nothing, until they agree.
  const asking = (waiting: boolean) => {
    if (mine !== launches) return;
    if (waiting) set(before);
    else starting();
  };
  try {
    const started = await request(asking);
    if (!started) {
      // The person said no: the panel shows what it showed (a failed run keeps its retry).
      if (mine === launches) set(before);
      return null;
    }
    const { runId, parentRunId, forkSeq, warnings } = started;
    set((s) => ({
      run: {
        ...s.run,
        runId,
        ...(parentRunId !== undefined && forkSeq !== undefined
          ? { forkOf: { runId: parentRunId, seq: forkSeq } }
          : {}),
      },
    }));
    const waiting = earlyEvents(runId);
    clearEarlyEvents();
    if (waiting.length) set((s) => ({ run: applyEvents(s.run, waiting) }));
    // A budget the run may stop at (a loop that may stop early, or a stop the person allowed).
    if (warnings?.length) notify('info', `${what} started; ${warnings.join('; ')}`);
    return runId;
  } catch (error) {
    if (error instanceof ApiError && !error.problems.length && onRefused?.(error)) return null;
    refused(error, what);
    return null;
  }
}

/** A run the backend would not start: why, and the document's problems when it has some. */
function refused(error: unknown, what: string, ways?: Parameters<typeof refusalNotice>[2]): void {
  const problems = error instanceof ApiError ? error.problems : [];
  set({
    run: { ...idleRun(), status: 'failed', error: (error as Error).message },
    ...(problems.length ? { problems, runTab: 'problems' as const } : {}),
  });
  if (error instanceof ApiError && error.reason) refusalNotice(`${what} not started`, error, ways);
  else notify('error', `${what} not started: ${(error as Error).message}`);
}

export async function control(
  action: 'pause' | 'resume' | 'step' | 'cancel',
  step?: 'node' | 'message' | 'round' | 'tool',
): Promise<void> {
  const { runId } = get().run;
  if (!runId) return;
  // An edit of the held message (or tool call) goes with the step that delivers it.
  if ((action === 'step' || action === 'resume') && !(await applyHeldEdit())) return;
  if ((action === 'step' || action === 'resume') && !(await applyHeldToolEdit())) return;
  if ((action === 'step' || action === 'resume') && !(await applyHeldToolResultEdit())) return;
  try {
    await api().call('run.control', { runId, action, ...(step ? { step } : {}) });
  } catch (error) {
    notify('error', `${action} failed: ${(error as Error).message}`);
  }
}

/** Sends the breakpoints to the run under way (they are also sent when a run starts). */
export async function syncBreakpoints(): Promise<void> {
  const { run } = get();
  if (!run.runId || !isActive(run.status)) return;
  try {
    await api().call('run.breakpoints', { runId: run.runId, breakpoints: breakpointList() });
  } catch (error) {
    notify('error', `breakpoints not updated: ${(error as Error).message}`);
  }
}

export function toggleBreakpoint(nodeId: string): void {
  set((s) => {
    const has = s.breakpoints.nodes.includes(nodeId);
    return {
      breakpoints: {
        ...s.breakpoints,
        nodes: has
          ? s.breakpoints.nodes.filter((n) => n !== nodeId)
          : [...s.breakpoints.nodes, nodeId],
      },
    };
  });
  void syncBreakpoints();
}

/**
 * Pauses before every tool call (`tools`), or after every tool call returned, before the model
 * reads its result (`toolResults`), or no longer.
 */
export function setBreakTools(on: boolean, at: 'tools' | 'toolResults' = 'tools'): void {
  set((s) => ({ breakpoints: { ...s.breakpoints, [at]: on } }));
  void syncBreakpoints();
}

/**
 * Sets the round to pause at; `loop` (a copy's loop, `artists#3/talk`) holds it for that copy
 * only, `null` for every copy (the default kept when `loop` is not given).
 */
export function setBreakRound(round: number | null, loop?: string | null): void {
  set((s) => ({
    breakpoints: {
      ...s.breakpoints,
      round,
      roundLoop: loop === undefined ? s.breakpoints.roundLoop : loop,
    },
  }));
  void syncBreakpoints();
}

/** Shows a stored run's events in the run panel (transcript, votes, outputs). */
export async function showStoredRun(runId: string): Promise<boolean> {
  try {
    const { run, events } = await api().call('runs.show', { runId });
    const view = applyEvents({ ...startingRun(documentNodes().map((n) => n.id)), runId }, events);
    const parent = typeof run.parentRunId === 'string' ? run.parentRunId : undefined;
    if (parent && typeof run.forkSeq === 'number')
      view.forkOf = { runId: parent, seq: run.forkSeq };
    // A run that died with its process has no end event.
    if (view.status === 'running' || view.status === 'paused' || view.status === 'starting') {
      if (run.status === 'interrupted' || run.status === 'failed') view.status = 'failed';
    }
    useDebug.setState({ draft: null, contextInstance: null, contextCall: null });
    set({ run: view, runTab: 'transcript' });
    return true;
  } catch (error) {
    notify('error', `could not open run ${runId}: ${(error as Error).message}`);
    return false;
  }
}

/** Opens the graph a stored run ran (its own copy), then shows the run on it. */
export function openRunGraph(runId: string): void {
  unlessUnsaved('Open the graph of this run?', async () => {
    try {
      const { run } = await api().call('runs.show', { runId });
      const result = readDocument(String(run.documentText ?? ''));
      if (!result.ok) {
        notify('error', `run ${runId}: its graph does not parse (${result.problems[0]?.message})`);
        return;
      }
      loadDocument(result.doc, { dirty: false });
      await showStoredRun(runId);
    } catch (error) {
      notify('error', `could not open run ${runId}: ${(error as Error).message}`);
    }
  });
}

/**
 * Sends the edit of the held message, if there is one not sent yet. Returns false (and says
 * why) when the backend refused it, so the run is not stepped past a message that kept its text.
 */
export async function applyHeldEdit(): Promise<boolean> {
  const { draft } = useDebug.getState();
  const held = heldMessage(get().run);
  if (!draft || !held || draft.key !== held.key || draft.applied) return true;
  if (draft.text === draft.original) return true;
  const done = await editHeld(`${held.instance}'s message`, {
    kind: 'message',
    instance: held.instance,
    text: draft.text,
  });
  if (done) useDebug.setState({ draft: { ...draft, applied: true } });
  return done;
}

type HeldEdit =
  | { kind: 'message'; instance: string; text: string }
  | { kind: 'output'; instance: string; outputs: Record<string, unknown> };

/**
 * Sends an edit of what the run is held at. Under a cassette replay it first asks how the calls
 * the cassette will lack are answered (simulated, live after the keys and the estimate, or the
 * edit cancelled). False when the edit was not made, and the person has been told why.
 */
async function editHeld(what: string, edit: HeldEdit): Promise<boolean> {
  const runId = get().run.runId;
  if (!runId) return false;
  const replaying = get().run.mode === 'replay';
  const by = replaying ? await askBeyondCassette(what) : undefined;
  if (by === null) {
    notify('info', `Edit cancelled: ${what} stays as it was`);
    return false;
  }
  try {
    const result = await withSpendConsent(
      (costConfirmed) =>
        api().call('run.editHeld', {
          runId,
          ...edit,
          ...(by ? { beyondCassette: by, costConfirmed } : {}),
        }),
      () => api().call('runs.estimate', { runId }),
      'Going live for the rest of this run',
    );
    if (!result) {
      notify('info', `Edit cancelled: ${what} stays as it was`);
      return false;
    }
    if (by) {
      set((s) => ({ run: { ...s.run, mode: result.mode } }));
      notify(
        'info',
        `The calls the cassette lacks are now ${by === 'simulated' ? 'simulated (labelled as such)' : 'live (they cost money)'}; the run is ${result.mode}`,
      );
    }
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.reason) refusalNotice('The edit was not applied', error);
    else notify('error', `the edit was not applied: ${(error as Error).message}`);
    return false;
  }
}

/** Sets the outputs of the node instance held before it starts; it will not run. */
export async function overrideHeldOutput(
  instance: string,
  outputs: Record<string, unknown>,
): Promise<boolean> {
  const replaying = get().run.mode === 'replay';
  const done = await editHeld(`${instance}'s outputs`, { kind: 'output', instance, outputs });
  if (done && !replaying) notify('info', `${instance} will not run: its outputs are set`);
  return done;
}

/** What is asked before a stored run is run again: its own estimate and its own origins. */
function storedRunChecks(runId: string): StartChecks {
  return {
    estimate: () => api().call('runs.estimate', { runId }),
    hosts: () => api().call('runs.hosts', { runId }),
  };
}

/** Forks a stored run with edits of what instances said; the fork runs live in the panel. */
export async function forkRun(
  runId: string,
  edits: Array<{ instance: string; text: string }>,
  options: { at?: number; simulate?: boolean } = {},
): Promise<string | null> {
  if (isActive(get().run.status)) {
    notify('error', 'A run is under way: stop it before forking another.');
    return null;
  }
  const params = (costConfirmed: boolean): ApiParams<'runs.fork'> => ({
    runId,
    edits,
    ...(options.at !== undefined ? { at: options.at } : {}),
    simulate: options.simulate === true,
    costConfirmed,
    breakpoints: breakpointList(),
  });
  // A live fork sends what the parent's record lacks: asked first above the threshold.
  return launch(
    (asking) =>
      withStartConsent(
        (confirmed) => api().call('runs.fork', params(confirmed)),
        { ...storedRunChecks(runId), upperBound: 'This live fork' },
        asking,
      ),
    'Fork',
  );
}

/**
 * Continues a failed or cancelled run once its cause is fixed (a key set, a server back): a new
 * run, a fork of it at the failure, answers every call it answered from its record and sends
 * only the rest; the panel follows it.
 */
export async function continueRun(runId: string): Promise<string | null> {
  if (isActive(get().run.status)) {
    notify('error', 'A run is under way: stop it before retrying another.');
    return null;
  }
  let answered = 0;
  const continued = await launch(async (asking) => {
    const result = await withStartConsent(
      (costConfirmed) =>
        api().call('runs.continue', { runId, costConfirmed, breakpoints: breakpointList() }),
      { ...storedRunChecks(runId), upperBound: 'This retry' },
      asking,
    );
    answered = result?.answered ?? 0;
    return result;
  }, 'Retry');
  if (continued)
    notify(
      'info',
      `Retrying ${runId} from the failure: ${answered} answered call${answered === 1 ? '' : 's'} come from its record`,
    );
  return continued;
}

/**
 * Compares two stored runs in the Diff tab. When one forks the other, the parent is A (the
 * removed side) and the fork B (the added side), whichever was ticked first, unless `asGiven`
 * (the Swap button).
 */
export async function compareRuns(
  a: string,
  b: string,
  options: { asGiven?: boolean } = {},
): Promise<void> {
  try {
    let diff = await api().call('runs.diff', { a, b });
    if (!options.asGiven && diff.fork?.child === 'a')
      diff = await api().call('runs.diff', { a: b, b: a });
    useDebug.setState({ diff });
    set({ runTab: 'diff' });
  } catch (error) {
    notify('error', `could not compare the runs: ${(error as Error).message}`);
  }
}

/** Deletes a stored run after asking; `done` is told when it is gone. */
export function deleteStoredRun(runId: string, done: () => void): void {
  set({
    modal: {
      kind: 'confirm',
      message: `Delete run ${runId} with its events and recorded calls? Forks of it keep their own events.`,
      confirm: 'Delete run',
      onConfirm: async () => {
        try {
          const { deleted } = await api().call('runs.delete', { runId });
          if (!deleted) notify('error', `run ${runId} was already gone`);
          useDebug.setState((s) => ({
            picked: s.picked.filter((id) => id !== runId),
            diff: s.diff && (s.diff.a.id === runId || s.diff.b.id === runId) ? null : s.diff,
          }));
          if (get().run.runId === runId) set({ run: idleRun() });
          done();
        } catch (error) {
          notify('error', `could not delete run ${runId}: ${(error as Error).message}`);
        }
      },
    },
  });
}
