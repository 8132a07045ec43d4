/**
 * Which outside origins a run may contact. A document is data someone may have shared: the URLs
 * its nodes contact themselves (a simulator's today, a tool's later) are the document's choice,
 * but whether this machine talks to them is the user's. A run contacts an origin
 * (scheme://host:port) only when the user allowed it (`society hosts --allow`, Settings →
 * Allowed hosts, or for one run `--allow-host`); this machine's own ports are no exception,
 * since a local service is exactly what a hostile document would aim at.
 *
 * What a node contacts is its spec's to say, through the `origins` hook, as `preflight.ts` reads
 * `providers`: this module names no node type.
 */
import type { GraphPlan } from '../compiler/analyze.ts';

/**
 * The origin of a URL as runs compare it: scheme, host and port, lower-cased, a default port
 * left out (`http://example.org:80/x` is `http://example.org`). Undefined when the text is not
 * a URL with a network origin (`file:`, garbage).
 */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const origin = parsed.origin;
  return origin === 'null' ? undefined : origin;
}

/**
 * An origin as a person types it for `--allow`, checked: `scheme://host[:port]` with nothing
 * after but an optional `/`. Throws one line saying what an origin looks like.
 */
export function parseOrigin(text: string): string {
  const trimmed = text.trim();
  const origin = originOf(trimmed);
  const example = 'an origin is scheme://host:port, e.g. http://127.0.0.1:8765';
  if (!origin) throw new Error(`"${text}" is not an origin: ${example}`);
  const parsed = new URL(trimmed);
  if (parsed.username || parsed.password)
    throw new Error(`"${text}" holds a user name or password: ${example}`);
  if (parsed.pathname !== '/' || parsed.search || parsed.hash || /[?#]/.test(trimmed))
    throw new Error(`"${text}" has a path: ${example}, without one`);
  return origin;
}

/** The command that allows an origin, as refusals quote it. */
export function allowCommand(origin: string): string {
  return `society hosts --allow ${origin}`;
}

/** An origin a run's nodes will contact, with whether the user allowed it. */
export interface OriginNeed {
  origin: string;
  /** The nodes that contact it, in document order. */
  nodes: string[];
  allowed: boolean;
}

/**
 * Every origin the plan's nodes say they will contact (their spec's `origins` hook), in
 * document order, each with whether it is in `allowed`. A URL with no origin is left to the
 * node's own checks. Pure.
 */
export function plannedOrigins(plan: GraphPlan, allowed: Iterable<string>): OriginNeed[] {
  const allow = new Set(allowed);
  const needs = new Map<string, OriginNeed>();
  for (const node of [...plan.nodes.values()].sort((a, b) => a.index - b.index)) {
    let urls: string[] = [];
    try {
      urls = node.spec.origins?.(node.data) ?? [];
    } catch {
      // Data the hook cannot read: the compiler has said so.
    }
    for (const url of urls) {
      const origin = originOf(url);
      if (!origin) continue;
      let need = needs.get(origin);
      if (!need) {
        need = { origin, nodes: [], allowed: allow.has(origin) };
        needs.set(origin, need);
      }
      if (!need.nodes.includes(node.id)) need.nodes.push(node.id);
    }
  }
  return [...needs.values()];
}

/** The origins of `plannedOrigins` the user has not allowed. */
export function unallowedOrigins(plan: GraphPlan, allowed: Iterable<string>): OriginNeed[] {
  return plannedOrigins(plan, allowed).filter((n) => !n.allowed);
}

/** Where a person allows an origin: the command line's words, or the studio's. */
export type OriginAdvice = 'cli' | 'studio';

/**
 * The refusal in one line (the engine's and the studio's), naming every origin not allowed and
 * how to allow it.
 */
export function originsMessage(needs: readonly OriginNeed[], advice: OriginAdvice): string {
  const named = needs.map(
    (n) => `${n.origin} (node${n.nodes.length === 1 ? '' : 's'} ${n.nodes.join(', ')})`,
  );
  const how =
    advice === 'studio'
      ? 'allow it in Settings → Allowed hosts'
      : needs.map((n) => allowCommand(n.origin)).join('; ');
  return `nothing was sent: this document contacts ${needs.length === 1 ? 'a host' : 'hosts'} you have not allowed: ${named.join(', ')}; a document cannot choose the hosts it reaches: ${how}`;
}
