import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NormalizedRequest, requestKey } from '../providers/cassette.ts';
import { Redactor } from '../providers/secrets.ts';
import { exportRun } from '../runs/export.ts';
import {
  dir,
  everyKind,
  newRun,
  numbered,
  open,
  store,
  withTempStores,
} from './store.test-helper.ts';
import { openRunStore } from './store.ts';

withTempStores();

/** A finished run in a store of its own: events, a recorded call and an image it was given. */
function workerRun(text = 'Tea, obviously.') {
  const worker = store(join(dir, 'worker.db'));
  const run = newRun(worker);
  const picture = worker.putBlob(new Uint8Array([137, 80, 78, 71, 1, 2, 3]), 'image/png');
  const request: NormalizedRequest = {
    model: 'gpt-x',
    messages: [{ role: 'user', content: 'Tea?' }],
  };
  worker.recordCall(run.id, requestKey(request), request, {
    text,
    usage: { promptTokens: 3, completionTokens: 2 },
    model: 'gpt-x',
  });
  const writer = worker.eventWriter(run.id);
  for (const event of numbered(run.id, everyKind)) writer.push(event);
  writer.close({
    status: 'succeeded',
    outputs: { answer: text, picture: { $image: picture, mime: 'image/png' } },
    usage: { calls: 1, promptTokens: 3, completionTokens: 2, totalTokens: 5, costUsd: 0.001 },
  });
  return { worker, data: exportRun(worker, worker.getRun(run.id)!) };
}

describe('importing a run made in another store', () => {
  it('reads back exactly as it did where it was made, and a second import changes nothing', () => {
    const { worker, data } = workerRun();
    const here = store();
    expect(here.importRun(data)).toBe('imported');
    const id = data.run.id;
    expect(here.getRun(id)).toEqual(worker.getRun(id));
    expect(here.events(id)).toEqual(worker.events(id));
    expect(here.callRecord(id)).toEqual(worker.callRecord(id));
    const picture = (data.run.outputs!.picture as { $image: string }).$image;
    expect(here.getBlob(picture)).toEqual(worker.getBlob(picture));
    expect(here.listRuns()).toHaveLength(1);

    expect(here.importRun(data)).toBe('present');
    expect(here.events(id)).toHaveLength(everyKind.length);
  });

  it('replaces a run cut off here with its finished version, and refuses an unfinished one', () => {
    const { data } = workerRun();
    const here = store();
    here.createRun({
      id: data.run.id,
      document: JSON.parse(data.run.documentText),
      documentText: data.run.documentText,
      compilerVersion: data.run.compilerVersion,
      mode: data.run.mode,
      inputs: data.run.inputs,
      owner: { pid: 999_999_999, host: 'elsewhere' },
    });
    expect(here.importRun(data)).toBe('replaced');
    expect(here.getRun(data.run.id)?.status).toBe('succeeded');
    expect(() => here.importRun({ ...data, run: { ...data.run, status: 'running' } })).toThrow(
      /only a finished run can be imported/,
    );
  });

  it('refuses bytes that do not match their hash', () => {
    const { data } = workerRun();
    const [hash, blob] = Object.entries(data.blobs)[0]!;
    const forged = { ...data, blobs: { [hash]: { ...blob, base64: 'AAAA' } } };
    expect(() => store().importRun(forged)).toThrow(/does not match its bytes/);
  });

  it('scrubs the key values this store knows on the way in', () => {
    const key = ['sk', 'proj', 'FAKEimportVALUE123456'].join('-');
    const { data } = workerRun(`the key is ${key}`);
    const redactor = new Redactor();
    redactor.add([key]);
    const here = openRunStore(join(dir, 'here.db'), { redactor });
    open.push(here);
    here.importRun(data);
    const text = JSON.stringify([
      here.getRun(data.run.id),
      here.events(data.run.id),
      here.callRecord(data.run.id),
    ]);
    expect(text).toContain('the key is');
    expect(text).not.toContain(key);
  });
});
