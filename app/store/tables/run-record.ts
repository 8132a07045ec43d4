/**
 * What the store knows of a run, as callers see it: the records, the run's owning process and
 * run ids. The `runs` table itself is in runs.ts.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunMode, RunStatus, Usage } from '../../runtime/events.ts';
import type { GraphDocument } from '../../schema/document.ts';

/** A run's status in the store: the engine's final statuses, plus the two it cannot report. */
export type StoredRunStatus = 'running' | RunStatus | 'interrupted';

/** What `createRun` needs to know about a run before its first event. */
export interface NewRun {
  /** Defaults to `newRunId()`. Pass the engine's run id when it already has one. */
  id?: string;
  /** The parsed document: its name and content hash are stored with the run. */
  document: GraphDocument;
  /** The exact text that was run, so the run can be recompiled as it was. */
  documentText: string;
  compilerVersion: number;
  mode: RunMode;
  inputs: Record<string, unknown>;
  /** For a fork: the run it continues, and the last event of that run it keeps. */
  parentRunId?: string;
  forkSeq?: number;
  /** Milliseconds since the epoch; defaults to now. */
  startedAt?: number;
  /** The process running it; defaults to this one. Lets a crashed run be told from a live one. */
  owner?: RunOwner;
}

/** Which process runs a run. */
export interface RunOwner {
  pid: number;
  host: string;
}

/** This process. */
export function thisProcess(): RunOwner {
  return { pid: process.pid, host: hostname() };
}

/** Whether a process of this host is alive (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A stored run. */
export interface RunRecord {
  id: string;
  graphName: string;
  graphHash: string;
  documentText: string;
  compilerVersion: number;
  mode: RunMode;
  inputs: Record<string, unknown>;
  status: StoredRunStatus;
  startedAt: number;
  finishedAt?: number;
  outputs?: Record<string, unknown>;
  usage?: Usage;
  costUsd?: number;
  error?: string;
  parentRunId?: string;
  forkSeq?: number;
}

/** How a run ended. */
export interface RunFinish {
  status: RunStatus;
  outputs?: Record<string, unknown>;
  usage?: Usage;
  /** Defaults to `usage.costUsd`. */
  costUsd?: number;
  error?: string;
  /** Milliseconds since the epoch; defaults to now. */
  finishedAt?: number;
  /** How the run answered its calls, when that changed as it ran (else the mode it started with). */
  mode?: RunMode;
}

/** One line of a run list. */
export interface RunSummary {
  id: string;
  graph: string;
  status: StoredRunStatus;
  mode: RunMode;
  startedAt: number;
  finishedAt?: number;
  /** Absent when no call had a price. */
  costUsd?: number;
  /** From the final usage; for unfinished runs, summed from the model.response events. */
  calls: number;
  tokens: number;
  parentRunId?: string;
}

export interface ListRunsOptions {
  /** Default 50. */
  limit?: number;
  /** Only runs of the graph with this name. */
  graph?: string;
  status?: StoredRunStatus;
}

/** A run id prefix matched more than one run. */
export class AmbiguousRunIdError extends Error {
  readonly prefix: string;
  /** Some of the matching ids (at most 5). */
  readonly matches: readonly string[];
  constructor(prefix: string, matches: readonly string[]) {
    const shown = matches.slice(0, 5);
    super(
      `run id prefix "${prefix}" is ambiguous: it matches ${shown.join(', ')}${matches.length > 5 ? ', …' : ''}; type more of the id`,
    );
    this.name = 'AmbiguousRunIdError';
    this.prefix = prefix;
    this.matches = shown;
  }
}

/** A new run id: 16 random hex digits, so a few leading characters tell runs apart (like git). */
export function newRunId(): string {
  return randomBytes(8).toString('hex');
}
