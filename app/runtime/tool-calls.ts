/**
 * The pure parts of a tool call: how a source is named, whether a call's arguments fit its
 * tool's schema (what the model reads back when they do not), and a made-up result under
 * --simulate.
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { toolKey } from '../providers/cassette-file.ts';
import { valueForSchema } from '../providers/simulated-json.ts';
import type { ToolDefinition, ToolResult, ToolSourceRef } from '../providers/tools.ts';
import { SIMULATED_PREFIX } from '../schema/simulated.ts';
import { errorMessage } from './values.ts';

const require = createRequire(import.meta.url);

/**
 * Compiles one run's tool argument schemas. Ajv is loaded when the first run offers a tool, not
 * with the engine: it is large, and most runs offer none.
 */
export class ArgumentChecker {
  #ajv?: Ajv;

  /** The checker of `definition`'s arguments; a schema Ajv cannot read is named. */
  compile(definition: ToolDefinition): ValidateFunction {
    if (!this.#ajv) {
      const { Ajv } = require('ajv') as typeof import('ajv');
      this.#ajv = new Ajv({ allErrors: true, strict: false });
    }
    try {
      return this.#ajv.compile(definition.parameters);
    } catch (error) {
      throw new Error(
        `the tool "${definition.name}" has a schema that cannot be read: ${errorMessage(error)}`,
      );
    }
  }
}

/** How events and records name a source: `mcp:tools`, `graph:calculator`. */
export function sourceId(ref: ToolSourceRef): string {
  return ref.kind === 'mcp' ? `mcp:${ref.profile}` : `graph:${ref.graph}`;
}

/** The arguments as an object that fits the tool's schema, or why not (what the model reads). */
export function checkArguments(
  offered: { definition: ToolDefinition; validate: ValidateFunction },
  text: string,
): Record<string, unknown> | string {
  const name = offered.definition.name;
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    return `the arguments of "${name}" are not JSON: ${errorMessage(error)}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return `the arguments of "${name}" must be a JSON object`;
  if (!offered.validate(parsed)) {
    const problems = (offered.validate.errors ?? [])
      .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is not valid'}`)
      .join('; ');
    return `the arguments of "${name}" do not match its schema: ${problems}`;
  }
  return parsed as Record<string, unknown>;
}

/**
 * A made-up result under --simulate: shaped by the tool's output schema when it has one, and
 * labelled, so it can never pass for what the tool would have said. No source is called.
 */
export function simulatedResult(tool: ToolDefinition, args: Record<string, unknown>): ToolResult {
  const hex = toolKey({ source: 'simulated', tool: tool.name, arguments: args });
  let next = 0;
  const draw = (n: number) => {
    const start = (next++ * 4) % hex.length;
    return Number.parseInt(hex.slice(start, start + 4), 16) % Math.max(1, n);
  };
  if (tool.outputSchema) {
    const structured = valueForSchema(tool.outputSchema, {
      say: () => `${SIMULATED_PREFIX}a result of ${tool.name}`,
      draw,
    });
    return {
      content: `${SIMULATED_PREFIX}${JSON.stringify(structured)}`,
      structured,
      source: 'simulated',
    };
  }
  return {
    content: `${SIMULATED_PREFIX}what ${tool.name} would give for ${JSON.stringify(args)}`,
    source: 'simulated',
  };
}
