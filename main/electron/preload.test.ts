import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { contract } from '../../app/api/contract.ts';
import { API_METHODS, channelOf, RUN_EVENT_CHANNEL } from './ipc.ts';

const require = createRequire(import.meta.url);
const PRELOAD = require.resolve('./preload.cjs');
const SOURCE = readFileSync(PRELOAD, 'utf8');

type Listener = (event: unknown, ...args: unknown[]) => void;

/**
 * Runs the preload as Electron would, with a stand-in `electron` module (contextBridge and
 * ipcRenderer) in Node's module cache, and returns what it exposed.
 */
function loadPreload() {
  const exposed = new Map<string, unknown>();
  const listeners = new Map<string, Set<Listener>>();
  const ipcRenderer = {
    invoke: vi.fn(async (channel: string, ...args: unknown[]) => ({ result: { channel, args } })),
    on: vi.fn((channel: string, listener: Listener) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    }),
    removeListener: vi.fn((channel: string, listener: Listener) => {
      listeners.get(channel)?.delete(listener);
    }),
    send: vi.fn(),
    sendSync: vi.fn(),
  };
  const contextBridge = {
    exposeInMainWorld: vi.fn((key: string, api: unknown) => exposed.set(key, api)),
  };
  const electronPath = require.resolve('electron');
  const stub = new Module(electronPath);
  stub.filename = electronPath;
  stub.loaded = true;
  stub.exports = { contextBridge, ipcRenderer };
  require.cache[electronPath] = stub;
  delete require.cache[PRELOAD];
  try {
    require(PRELOAD);
  } finally {
    delete require.cache[electronPath];
    delete require.cache[PRELOAD];
  }
  const emit = (channel: string, event: unknown, ...args: unknown[]) => {
    for (const listener of listeners.get(channel) ?? []) listener(event, ...args);
  };
  return { exposed, ipcRenderer, contextBridge, listeners, emit };
}

describe('the preload (S6, S8)', () => {
  it('exposes only window.society', () => {
    const { exposed, contextBridge } = loadPreload();
    expect([...exposed.keys()]).toEqual(['society']);
    expect(contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
  });

  it("lists exactly the contract's methods", () => {
    const { exposed } = loadPreload();
    const society = exposed.get('society') as Record<string, unknown>;
    const methods = Object.keys(society).filter((k) => k !== 'onRunEvent');
    const contractMethods = Object.keys(contract);
    const missing = contractMethods.filter((m) => !methods.includes(m));
    const extra = methods.filter((m) => !contractMethods.includes(m));
    expect(
      { missing, extra },
      'add or remove these names in METHODS in main/electron/preload.cjs',
    ).toEqual({ missing: [], extra: [] });
    expect(Object.keys(society).sort()).toEqual([...contractMethods, 'onRunEvent'].sort());
    expect(Object.isFrozen(society)).toBe(true);
  });

  it('binds each method to its own channel, whatever the page passes', async () => {
    const { exposed, ipcRenderer } = loadPreload();
    const society = exposed.get('society') as Record<string, (...args: unknown[]) => unknown>;
    for (const method of API_METHODS) {
      ipcRenderer.invoke.mockClear();
      // A page trying to pick another channel only sends extra data on this one.
      await society[method]!({ some: 'params' }, 'api:settings.setKey', 'other');
      expect(ipcRenderer.invoke).toHaveBeenCalledTimes(1);
      expect(ipcRenderer.invoke).toHaveBeenCalledWith(channelOf(method), { some: 'params' });
    }
    expect(ipcRenderer.send).not.toHaveBeenCalled();
    expect(ipcRenderer.sendSync).not.toHaveBeenCalled();
  });

  it('has no generic invoke, send or ipcRenderer for the page', () => {
    const { exposed } = loadPreload();
    const society = exposed.get('society') as Record<string, unknown>;
    for (const key of Object.keys(society)) {
      expect(key).not.toMatch(/invoke|send|ipc|channel|require|process/i);
      expect(typeof society[key]).toBe('function');
    }
    // The source: one invoke, on a channel built from a listed method; nothing else reaches IPC.
    expect(SOURCE.match(/ipcRenderer\.invoke\(/g)).toHaveLength(1);
    expect(SOURCE).toMatch(
      /const channel = `api:\$\{method\}`;\s*return \(params\) => ipcRenderer\.invoke\(channel, params\);/,
    );
    expect(SOURCE).not.toMatch(/ipcRenderer\.(send|sendSync|sendTo|sendToHost|postMessage)\b/);
    expect(SOURCE).not.toMatch(/exposeInMainWorld\(\s*['"`](?!society['"`])/);
    expect(SOURCE).not.toMatch(/process\.|@electron-toolkit/);
  });

  it('requires nothing a sandboxed preload cannot (only electron)', () => {
    const required = [...SOURCE.matchAll(/require\(\s*([^)]*)\)/g)].map((m) => m[1]);
    expect(required).toEqual(["'electron'"]);
    expect(SOURCE).not.toMatch(/^\s*import\s/m);
  });

  it('forwards run events without the IPC event, and unsubscribes', () => {
    const { exposed, emit, listeners } = loadPreload();
    const society = exposed.get('society') as {
      onRunEvent(listener: (...args: unknown[]) => void): () => void;
    };
    const received: unknown[][] = [];
    const off = society.onRunEvent((...args) => received.push(args));
    const push = {
      push: 'run.events',
      pushes: [{ push: 'run.event', runId: 'r1', event: { type: 'message' } }],
    };
    emit(RUN_EVENT_CHANNEL, { sender: 'the IPC event', ports: [] }, push);
    expect(received).toEqual([[push]]);
    off();
    emit(RUN_EVENT_CHANNEL, {}, push);
    expect(received).toHaveLength(1);
    expect(listeners.get(RUN_EVENT_CHANNEL)?.size).toBe(0);
    expect(() => society.onRunEvent('not a function' as never)).toThrow(TypeError);
  });
});
