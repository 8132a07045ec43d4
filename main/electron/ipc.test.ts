import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contract } from '../../app/api/contract.ts';
import { Redactor } from '../../app/providers/secrets.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { ApiError, createApiHandlers } from '../api/handlers.ts';
import {
  API_METHODS,
  channelOf,
  createIpcDispatcher,
  type IpcSender,
  REFUSED_SENDER_MESSAGE,
  RUN_EVENT_CHANNEL,
  runEventsMessage,
} from './ipc.ts';

const EDITOR: IpcSender = {
  frameUrl: 'app://bundle/index.html',
  topFrame: true,
  fromAppWindow: true,
};
const KEY = 'sk-test-abcdefghijklmnop1234';

/** Handlers that answer `call` with `answer`. */
function fakeHandlers(answer: (method: string, params: unknown) => unknown) {
  return {
    call: vi.fn(async (method: string, params: unknown) => answer(method, params)),
    redactor: new Redactor([KEY]),
  };
}

describe('the IPC channels', () => {
  it('are one per contract method, named api:<method>, plus the run event channel', () => {
    expect(API_METHODS.sort()).toEqual(Object.keys(contract).sort());
    const channels = API_METHODS.map(channelOf);
    expect(new Set(channels).size).toBe(API_METHODS.length);
    expect(channelOf('runs.list')).toBe('api:runs.list');
    expect(channels).not.toContain(RUN_EVENT_CHANNEL);
  });
});

describe('the IPC dispatcher', () => {
  let store: RunStore | undefined;
  let dir: string | undefined;
  afterEach(() => {
    store?.close();
    store = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const realDispatcher = () => {
    dir = mkdtempSync(path.join(tmpdir(), 'society-ipc-'));
    store = openRunStore(':memory:');
    const handlers = createApiHandlers({ store, workspaceDir: dir, env: {}, log: () => {} });
    return createIpcDispatcher(handlers, () => {});
  };

  it('answers a valid request from the editor with { result }', async () => {
    const dispatch = realDispatcher();
    expect(await dispatch('files.list', EDITOR, {})).toEqual({ result: [] });
    expect(await dispatch('runs.list', EDITOR, undefined)).toEqual({ result: [] });
  });

  it("adds a server that runs a program once the host's confirm says yes, as main.ts wires it", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'society-ipc-'));
    store = openRunStore(':memory:');
    const answers = [false, true];
    const asked: string[] = [];
    const handlers = createApiHandlers({
      store,
      workspaceDir: dir,
      env: {},
      log: () => {},
      confirm: async (message) => {
        asked.push(message);
        return answers.shift()!;
      },
    });
    const dispatch = createIpcDispatcher(handlers, () => {});
    const request = { name: 'files', command: 'files-server', args: ['--root', 'my notes'] };
    expect(await dispatch('settings.mcp.saveProgram', EDITOR, request)).toEqual({
      error: { message: 'MCP server "files" was not added: you did not confirm it' },
    });
    expect(asked[0]).toContain("files-server --root 'my notes'");
    const saved = await dispatch('settings.mcp.saveProgram', EDITOR, request);
    expect(saved).toMatchObject({
      result: {
        programs: true,
        profiles: [{ name: 'files', where: 'files-server --root my notes' }],
      },
    });
    // A command line is never taken from another frame, even with a yes ready.
    answers.push(true);
    const other = { ...EDITOR, frameUrl: 'https://evil.example/' };
    expect(await dispatch('settings.mcp.saveProgram', other, { ...request, name: 'evil' })).toEqual(
      {
        error: { message: REFUSED_SENDER_MESSAGE },
      },
    );
    expect(asked).toHaveLength(2);
  });

  it('refuses bad params with a message naming the method and the field', async () => {
    const dispatch = realDispatcher();
    const answer = await dispatch('runs.list', EDITOR, { limit: 'all' });
    expect(answer).toEqual({ error: { message: expect.stringContaining('runs.list') } });
    const message = (answer as { error: { message: string } }).error.message;
    expect(message).toMatch(/^invalid params for runs\.list: limit: /);
    expect(message).not.toMatch(/\n\s+at /);

    const write = await dispatch('files.write', EDITOR, { name: 42 });
    expect((write as { error: { message: string } }).error.message).toMatch(
      /invalid params for files\.write: name: .*; text: /,
    );
    expect(await dispatch('files.read', EDITOR, 'not an object')).toMatchObject({
      error: { message: expect.stringMatching(/^invalid params for files\.read/) },
    });
  });

  it('refuses a sender that is not the editor, without calling the handlers', async () => {
    const handlers = fakeHandlers(() => []);
    const lines: string[] = [];
    const dispatch = createIpcDispatcher(handlers, (line) => lines.push(line));
    const refused = [
      { ...EDITOR, frameUrl: 'https://evil.example/' },
      { ...EDITOR, frameUrl: 'file:///tmp/x.html' },
      { ...EDITOR, topFrame: false },
      { ...EDITOR, frameUrl: undefined },
      { ...EDITOR, fromAppWindow: false },
    ];
    for (const sender of refused) {
      expect(await dispatch('files.list', sender, {})).toEqual({
        error: { message: REFUSED_SENDER_MESSAGE },
      });
    }
    expect(handlers.call).not.toHaveBeenCalled();
    expect(lines).toHaveLength(refused.length);
    expect(lines[0]).toContain('refused files.list from https://evil.example/');
  });

  it('refuses an unknown method', async () => {
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => null),
      () => {},
    );
    // @ts-expect-error: a method the contract does not have
    expect(await dispatch('process.exit', EDITOR, {})).toEqual({
      error: { message: 'unknown method "process.exit"' },
    });
  });

  it("passes an ApiError's message and problems, redacted", async () => {
    const problems = [{ path: 'nodes.0', node: 'a', message: 'no such type' }];
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => {
        throw new ApiError(`the document has problems (key ${KEY})`, problems);
      }),
      () => {},
    );
    const answer = await dispatch('document.validate', EDITOR, { document: {} });
    expect(answer).toEqual({
      error: { message: expect.stringContaining('the document has problems'), problems },
    });
    expect(JSON.stringify(answer)).not.toContain(KEY);
  });

  it('turns a bug into one line for the page and the stack for the log, never leaking either key or stack', async () => {
    const lines: string[] = [];
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => {
        throw new TypeError(`cannot read properties of undefined (reading 'x') with ${KEY}`);
      }),
      (line) => lines.push(line),
    );
    const answer = await dispatch('templates.list', EDITOR, {});
    expect(answer).toEqual({
      error: { message: expect.stringMatching(/^templates\.list failed: /) },
    });
    const text = JSON.stringify(answer);
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/\bat .*\.ts:\d+/);
    expect(text).not.toContain('\\n');
    expect(lines.join('\n')).toContain('TypeError');
    expect(lines.join('\n')).toMatch(/at .*ipc\.test\.ts/);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('never throws, even when the handlers throw something that is not an Error', async () => {
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => {
        throw 'a string';
      }),
      () => {},
    );
    await expect(dispatch('files.list', EDITOR, {})).resolves.toEqual({
      error: { message: 'files.list failed: a string' },
    });
  });

  it('checks the answer against the contract before it leaves', async () => {
    const lines: string[] = [];
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => [{ name: 'a.society.json', modifiedAt: 'yesterday', secret: KEY }]),
      (line) => lines.push(line),
    );
    const answer = await dispatch('files.list', EDITOR, {});
    expect(answer).toEqual({
      error: { message: "files.list failed: the backend's answer does not match the contract" },
    });
    expect(lines[0]).toContain('does not match the contract');
    expect(lines[0]).toContain('modifiedAt');
  });

  it('sends only what the contract describes, as JSON would carry it', async () => {
    const dispatch = createIpcDispatcher(
      fakeHandlers(() => [{ name: 'a.society.json', modifiedAt: 5, extra: 'dropped' }]),
      () => {},
    );
    expect(await dispatch('files.list', EDITOR, {})).toEqual({
      result: [{ name: 'a.society.json', modifiedAt: 5 }],
    });
  });

  it('passes the parsed params (with defaults) to the handlers', async () => {
    const handlers = fakeHandlers(() => []);
    const dispatch = createIpcDispatcher(handlers, () => {});
    await dispatch('runs.list', EDITOR, {});
    expect(handlers.call).toHaveBeenCalledWith('runs.list', { limit: 50 });
  });
});

describe('run event pushes', () => {
  it('are plain JSON data', () => {
    const batch = runEventsMessage({
      push: 'run.events',
      pushes: [
        {
          push: 'run.event',
          runId: 'r1',
          event: { type: 'message', at: new Date(0), missing: undefined },
        },
      ],
    });
    expect(batch).toEqual({
      push: 'run.events',
      pushes: [
        {
          push: 'run.event',
          runId: 'r1',
          event: { type: 'message', at: '1970-01-01T00:00:00.000Z' },
        },
      ],
    });
  });
});
