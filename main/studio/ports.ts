/**
 * The port a workspace's studio listened on last time, so a restarted studio comes back at the
 * same address (a new token, the same origin). The page keeps an unsaved document in its
 * origin's storage (renderer/drafts.ts): at the same origin, the new address can offer it back.
 * Kept beside the run store, one entry per workspace folder; a port taken by then is not waited
 * for: the studio takes a free one, and remembers that.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const Ports = z.record(z.string(), z.number().int().min(1).max(65535));

/** Where the ports are kept, for a run store at `dbFile`. */
export function portsFile(dbFile: string): string {
  return path.join(path.dirname(path.resolve(dbFile)), 'studio-ports.json');
}

function readPorts(file: string): Record<string, number> {
  try {
    const parsed = Ports.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {}; // none yet, or unreadable: a free port it is
  }
}

/** The port the studio of `workspace` last listened on, if one is remembered. */
export function rememberedPort(file: string, workspace: string): number | undefined {
  return readPorts(file)[path.resolve(workspace)];
}

/** Remembers `port` for `workspace`; a file that cannot be written is left as it is. */
export function rememberPort(file: string, workspace: string, port: number): void {
  const ports = { ...readPorts(file), [path.resolve(workspace)]: port };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`);
  } catch {
    // Read-only store folder: the next launch takes a free port, as before.
  }
}

/**
 * Starts on the workspace's remembered port, or a free one when none is remembered or it is
 * taken now; remembers the port it got.
 */
export async function startOnRememberedPort<S extends { port: number }>(
  start: (port: number) => Promise<S>,
  file: string,
  workspace: string,
): Promise<S> {
  const remembered = rememberedPort(file, workspace);
  let started: S;
  try {
    started = await start(remembered ?? 0);
  } catch (error) {
    if (remembered === undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE')
      throw error;
    started = await start(0);
  }
  rememberPort(file, workspace, started.port);
  return started;
}
