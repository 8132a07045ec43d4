/**
 * The editor window's preload script. It runs sandboxed, so it is plain CommonJS JavaScript
 * that requires nothing but `electron` (a sandboxed preload can require only `electron`,
 * `events`, `timers` and `url`, and runs no TypeScript and no ESM: S8).
 *
 * It exposes exactly one object to the page, `window.society` (S6): one function per method of
 * the API contract (app/api/contract.ts), each bound to its own fixed channel `api:<method>`,
 * and `onRunEvent`. There is no generic invoke or send, no `ipcRenderer`, no `process`: the
 * page can only ask what the contract allows, and main checks the sender and validates every
 * request and answer again (S7).
 *
 * The method names are listed here because a sandboxed preload cannot import the contract;
 * main/electron/preload.test.ts fails when this list and the contract's methods differ.
 */
'use strict';

const { contextBridge, ipcRenderer } = require('electron');

/** The contract's methods, in its order. */
const METHODS = [
  'templates.list',
  'templates.open',
  'document.validate',
  'document.compile',
  'document.export',
  'files.list',
  'files.read',
  'files.write',
  'run.start',
  'run.estimate',
  'runs.estimate',
  'run.control',
  'run.breakpoints',
  'run.editHeld',
  'run.editHeldTool',
  'run.editHeldToolResult',
  'run.context',
  'run.interview',
  'run.interviews',
  'runs.credit',
  'run.blob',
  'runs.list',
  'runs.fork',
  'runs.continue',
  'runs.diff',
  'runs.delete',
  'runs.show',
  'evals.list',
  'evals.get',
  'ratings.list',
  'ratings.put',
  'settings.keys',
  'settings.setKey',
  'settings.clearKey',
  'settings.providers.list',
  'settings.providers.save',
  'settings.providers.remove',
  'settings.prices.get',
  'settings.prices.set',
  'settings.prices.reset',
  'settings.defaults.get',
  'settings.defaults.set',
  'settings.liveRuns.get',
  'settings.liveRuns.set',
  'settings.hosts.list',
  'settings.hosts.allow',
  'settings.hosts.revoke',
  'settings.mcp.list',
  'settings.mcp.save',
  'settings.mcp.saveProgram',
  'settings.mcp.tools',
  'settings.mcp.policy',
  'settings.mcp.remove',
  'run.hosts',
  'runs.hosts',
];

/** The one channel main pushes run events on. */
const RUN_EVENT_CHANNEL = 'api:run.event';

/**
 * The function the page calls for `method`: it sends only its argument, on only its channel.
 * @param {string} method
 * @returns {(params?: unknown) => Promise<unknown>}
 */
function methodOn(method) {
  const channel = `api:${method}`;
  return (params) => ipcRenderer.invoke(channel, params);
}

/** @type {Record<string, unknown>} */
const society = {};
for (const method of METHODS) society[method] = methodOn(method);

/**
 * Calls `listener` with every run event main pushes; returns the function that stops it. The
 * listener gets the push only, never the IPC event (which carries the sender and ports).
 * @param {(push: unknown) => void} listener
 * @returns {() => void}
 */
society.onRunEvent = (listener) => {
  if (typeof listener !== 'function') throw new TypeError('onRunEvent needs a function');
  /** @type {(event: unknown, push: unknown) => void} */
  const forward = (_event, push) => listener(push);
  ipcRenderer.on(RUN_EVENT_CHANNEL, forward);
  return () => {
    ipcRenderer.removeListener(RUN_EVENT_CHANNEL, forward);
  };
};

contextBridge.exposeInMainWorld('society', Object.freeze(society));
