import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { portsFile, rememberedPort, startOnRememberedPort } from './ports.ts';

const servers: Server[] = [];
const listen = (port: number) =>
  new Promise<{ port: number }>((resolve, reject) => {
    const server = createServer();
    servers.push(server);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({ port: (server.address() as AddressInfo).port }),
    );
  });
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the studio's port across restarts", () => {
  it('comes back on the port its workspace had, so the page keeps its origin', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'society-ports-'));
    dirs.push(dir);
    const file = portsFile(path.join(dir, 'society.db'));
    const first = await startOnRememberedPort(listen, file, path.join(dir, 'ws'));
    expect(rememberedPort(file, path.join(dir, 'ws'))).toBe(first.port);
    await new Promise((r) => servers.pop()!.close(r));
    const again = await startOnRememberedPort(listen, file, path.join(dir, 'ws'));
    expect(again.port).toBe(first.port);
    // Another workspace gets a port of its own.
    const other = await startOnRememberedPort(listen, file, path.join(dir, 'other'));
    expect(other.port).not.toBe(first.port);
  });

  it('takes a free port when the remembered one is taken, and ignores a file it cannot read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'society-ports-'));
    dirs.push(dir);
    const file = portsFile(path.join(dir, 'society.db'));
    const taken = await listen(0);
    writeFileSync(file, JSON.stringify({ [path.resolve(dir, 'ws')]: taken.port }));
    const started = await startOnRememberedPort(listen, file, path.join(dir, 'ws'));
    expect(started.port).not.toBe(taken.port);
    expect(rememberedPort(file, path.join(dir, 'ws'))).toBe(started.port);
    writeFileSync(file, 'not json');
    expect(rememberedPort(file, path.join(dir, 'ws'))).toBeUndefined();
  });
});
