/**
 * Starting, steering and watching runs through the API. Events are pushed one by one; they are
 * folded into the view once per animation frame so a chatty run (streamed deltas, 129 members)
 * costs one render per frame, not one per event.
 */
import { ApiError, api } from '../api.ts';
import type { FlowNode } from '../model/document.ts';
import { applyEvents, idleRun, startingRun } from '../model/run.ts';
import { currentDocument, notify, useEditor } from '../store.ts';

const get = useEditor.getState;
const set = useEditor.setState;

let queue: Array<Record<string, unknown>> = [];
let scheduled = false;
/** Events for runs whose id the page does not know yet (they can beat run.start's answer). */
const early = new Map<string, Array<Record<string, unknown>>>();
let subscribed = false;

function flush() {
  scheduled = false;
  const events = queue;
  queue = [];
  if (events.length) set((s) => ({ run: applyEvents(s.run, events) }));
}

/** Listens to pushed run events, once per page. */
export function watchRuns(): void {
  if (subscribed) return;
  subscribed = true;
  api().onRunEvent((runId, event) => {
    const run = get().run;
    if (run.runId === runId) {
      queue.push(event);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
    } else if (run.status === 'starting') {
      const list = early.get(runId) ?? [];
      list.push(event);
      early.set(runId, list);
    }
  });
}

export interface RunInputField {
  id: string;
  name: string;
  modality: string;
  description: string;
  hasDefault: boolean;
  /** A human node: its answer can be given before the run starts. */
  human: boolean;
}

/** What the run asks for: each input node's value and each human node's answer. */
export function runInputFields(nodes: readonly FlowNode[]): RunInputField[] {
  const fields: RunInputField[] = [];
  for (const node of nodes) {
    if (node.type !== 'input' && node.type !== 'human') continue;
    const name = typeof node.data.name === 'string' ? node.data.name : undefined;
    if (!name) continue;
    const human = node.type === 'human';
    fields.push({
      id: node.id,
      name,
      modality: human
        ? 'text'
        : typeof node.data.modality === 'string'
          ? node.data.modality
          : 'text',
      description: human
        ? `${typeof node.data.prompt === 'string' ? node.data.prompt : ''}`
        : typeof node.data.description === 'string'
          ? node.data.description
          : '',
      hasDefault: !human && node.data.default !== undefined,
      human,
    });
  }
  return fields;
}

/** The run's inputs from the form, typed by each input node's modality. */
export function collectInputs(): { inputs: Record<string, unknown>; problems: string[] } {
  const { nodes, inputValues } = get();
  const inputs: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const { name, modality } of runInputFields(nodes)) {
    const text = inputValues[name];
    if (text === undefined || text === '') continue;
    if (modality === 'json' || modality.startsWith('list<')) {
      try {
        inputs[name] = JSON.parse(text);
      } catch {
        problems.push(`input "${name}" must be JSON`);
      }
    } else if (modality === 'number') {
      const n = Number(text);
      if (Number.isNaN(n)) problems.push(`input "${name}" must be a number`);
      else inputs[name] = n;
    } else if (modality === 'boolean') inputs[name] = text === 'true';
    else inputs[name] = text;
  }
  return { inputs, problems };
}

function breakpointList() {
  const { breakpoints } = get();
  return [
    ...breakpoints.nodes.map((node) => ({ node })),
    ...(breakpoints.round ? [{ round: breakpoints.round }] : []),
  ];
}

export function isActive(status: string): boolean {
  return status === 'starting' || status === 'running' || status === 'paused';
}

/** Starts a run: simulated answers, a template's cassette replayed, or live models. */
export async function startRun(mode: 'simulated' | 'default'): Promise<void> {
  if (isActive(get().run.status)) return;
  const { inputs, problems } = collectInputs();
  if (problems.length) {
    notify('error', problems.join('; '));
    set({ runTab: 'inputs' });
    return;
  }
  const { template, nodes } = get();
  const replay = mode === 'default' && template?.hasCassette ? template.file : undefined;
  // The backend resolves "example" from the template being replayed, so other runs need an
  // image of their own; saying so here beats a failed run.
  const examples = runInputFields(nodes).filter(
    (f) => f.modality === 'image' && inputs[f.name] === 'example',
  );
  if (!replay && examples.length) {
    notify(
      'error',
      `The example image is only used when replaying the template's cassette (Run). Pick an image for ${examples.map((f) => `"${f.name}"`).join(', ')} to run otherwise.`,
    );
    set({ runTab: 'inputs' });
    return;
  }
  watchRuns();
  early.clear();
  set({ run: startingRun(nodes.map((n) => n.id)), runTab: 'transcript' });
  try {
    const { runId } = await api().call('run.start', {
      document: currentDocument() as unknown as Record<string, unknown>,
      inputs,
      simulate: mode === 'simulated',
      ...(replay ? { replayTemplate: replay } : {}),
      breakpoints: breakpointList(),
    });
    set((s) => ({ run: { ...s.run, runId } }));
    const waiting = early.get(runId) ?? [];
    early.clear();
    if (waiting.length) set((s) => ({ run: applyEvents(s.run, waiting) }));
  } catch (error) {
    const problems = error instanceof ApiError ? error.problems : [];
    set({
      run: { ...idleRun(), status: 'failed', error: (error as Error).message },
      ...(problems.length ? { problems, runTab: 'problems' as const } : {}),
    });
    notify('error', `Run not started: ${(error as Error).message}`);
  }
}

export async function control(
  action: 'pause' | 'resume' | 'step' | 'cancel',
  step?: 'node' | 'message' | 'round',
): Promise<void> {
  const { runId } = get().run;
  if (!runId) return;
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

export function setBreakRound(round: number | null): void {
  set((s) => ({ breakpoints: { ...s.breakpoints, round } }));
  void syncBreakpoints();
}

/** Shows a stored run's events in the run panel (transcript, votes, outputs). */
export async function showStoredRun(runId: string): Promise<void> {
  try {
    const { events } = await api().call('runs.show', { runId });
    const view = applyEvents({ ...startingRun(get().nodes.map((n) => n.id)), runId }, events);
    set({ run: view, runTab: 'transcript' });
  } catch (error) {
    notify('error', `could not open run ${runId}: ${(error as Error).message}`);
  }
}
