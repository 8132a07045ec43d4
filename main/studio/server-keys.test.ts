import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listMcpProfiles } from '../../app/tools/profiles.ts';
import {
  dbFile,
  EXAMPLE_PNG,
  KEY,
  Page,
  store,
  studio,
  vqaDocument,
  withStudio,
} from './server.test-helper.ts';

withStudio();

describe('the studio API', () => {
  it('refuses, to anyone holding the token, to point a key at another server', async () => {
    const page = await Page.open();
    const evil = 'http://127.0.0.1:9/v1';
    try {
      // Redirecting a built-in provider that uses a key.
      await expect(
        page.call('settings.providers.save', { name: 'openai', baseUrl: evil }),
      ).rejects.toThrow(
        `changing where provider "openai" points, which uses the key in OPENAI_API_KEY, cannot be done from this page (anything that got hold of its access could send your key to its own server): run \`society providers --add openai=${evil}\` in a terminal, or use the desktop app`,
      );
      await expect(
        page.call('settings.providers.save', {
          name: 'openai',
          baseUrl: evil,
          apiKeyEnv: 'OPENAI_API_KEY',
        }),
      ).rejects.toThrow(`society providers --add openai=${evil} --key-env OPENAI_API_KEY`);
      // A new provider reading an existing key, or any other variable of the backend's.
      for (const apiKeyEnv of ['OPENAI_API_KEY', 'HF_TOKEN', 'AWS_SECRET_ACCESS_KEY']) {
        await expect(
          page.call('settings.providers.save', { name: 'mirror', baseUrl: evil, apiKeyEnv }),
        ).rejects.toThrow(
          `adding provider "mirror", which sends the key in ${apiKeyEnv}, cannot be done from this page`,
        );
      }
      // A keyless local server is added, but giving it a key afterwards is refused too.
      await page.call('settings.providers.save', {
        name: 'lab',
        baseUrl: 'http://127.0.0.1:8000/v1',
      });
      await expect(
        page.call('settings.providers.save', {
          name: 'lab',
          previousName: 'lab',
          baseUrl: 'http://127.0.0.1:8000/v1',
          apiKeyEnv: 'OPENAI_API_KEY',
        }),
      ).rejects.toThrow(
        /changing where provider "lab" points, which uses the key in OPENAI_API_KEY/,
      );
      // Renaming it onto a built-in name that uses a key is a redirection as well.
      await expect(
        page.call('settings.providers.save', {
          name: 'huggingface',
          previousName: 'lab',
          baseUrl: 'http://127.0.0.1:8000/v1',
        }),
      ).rejects.toThrow(/changing where provider "huggingface" points/);
      // What does not move a key still works: calls at once for the built-in openai.
      await page.call('settings.providers.save', {
        name: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        concurrency: 2,
      });
      expect(store.listProviderProfiles()).toEqual([
        { name: 'lab', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1' },
        {
          name: 'openai',
          kind: 'openai-compatible',
          baseUrl: 'https://api.openai.com/v1',
          apiKeyEnv: 'OPENAI_API_KEY',
          concurrency: 2,
        },
      ]);
      await page.call('settings.providers.remove', { name: 'lab' });
      await page.call('settings.providers.remove', { name: 'openai' });
    } finally {
      page.close();
    }
  });

  it('refuses, to anyone holding the token, to add a server that runs a program', async () => {
    const page = await Page.open();
    try {
      // The desktop app's method, called over the studio's socket as a page bypassing its form.
      await expect(
        page.call('settings.mcp.saveProgram', { name: 'shell', command: 'sh', args: ['-c', 'id'] }),
      ).rejects.toThrow(
        'a server that runs a program is added from a terminal or the desktop app, not from this page: society mcp --add shell --command "CMD ARGS"',
      );
      expect(await page.call('settings.mcp.list', {})).toEqual({ profiles: [], programs: false });
      expect(listMcpProfiles(store)).toEqual([]);
    } finally {
      page.close();
    }
  });

  it('sets a key without ever sending or storing it', async () => {
    const page = await Page.open();
    try {
      expect(await page.call('settings.keys')).toEqual([
        { name: 'OPENAI_API_KEY', configured: false },
        { name: 'HF_TOKEN', configured: false },
      ]);
      expect(await page.call('settings.setKey', { name: 'OPENAI_API_KEY', value: KEY })).toEqual({
        name: 'OPENAI_API_KEY',
        configured: true,
        last4: 'XYZW',
      });
      await expect(
        page.call('settings.setKey', { name: 'PATH', value: 'x'.repeat(20) }),
      ).rejects.toThrow(/invalid params/);
      await expect(
        page.call('settings.setKey', { name: 'HF_TOKEN', value: 'short' }),
      ).rejects.toThrow(/does not look like a key/);

      // A run whose question holds the key: it reaches the model, never the page or the store.
      const dataUrl = `data:image/png;base64,${EXAMPLE_PNG.toString('base64')}`;
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        mode: 'simulated',
        inputs: { question: `Is ${KEY} a key? (a) yes (b) no`, image: dataUrl },
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('succeeded');
      const shown = await page.call('runs.show', { runId });
      expect(JSON.stringify(shown)).toContain('[redacted]');
      // A key-holding replay is refused before it runs, naming the input, not its value.
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          mode: 'replay',
          replayTemplate: 'nlsom-vqa',
          inputs: { question: `Is ${KEY} a key?`, image: 'example' },
        }),
      ).rejects.toThrow("input question differs from the cassette's");
      expect(await page.call('settings.keys')).toContainEqual({
        name: 'OPENAI_API_KEY',
        configured: true,
        last4: 'XYZW',
      });
      expect(await page.call('settings.clearKey', { name: 'HF_TOKEN' })).toEqual({
        name: 'HF_TOKEN',
        configured: false,
      });

      // Every frame the page got (answers, and batches of the run's events) was looked through.
      expect(page.pushes.length).toBeGreaterThan(50);
      expect(page.frames.length).toBeGreaterThan(5);
      expect(page.frames.join('\n')).toContain('[redacted]');
      for (const frame of page.frames) expect(frame).not.toContain(KEY);
      expect(page.frames.join('\n')).not.toContain(KEY.slice(0, 20));
    } finally {
      page.close();
    }
    // Every byte of the database (and its write-ahead log) once the studio has stopped.
    await studio.close();
    store.close();
    for (const suffix of ['', '-wal', '-shm']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(`${dbFile}${suffix}`);
      } catch {
        continue;
      }
      expect(bytes.includes(KEY), `society.db${suffix}`).toBe(false);
      expect(bytes.includes(KEY.slice(0, 20)), `society.db${suffix}`).toBe(false);
    }
    expect(readFileSync(dbFile).includes('[redacted]')).toBe(true);
  });
});
