/**
 * The document's template parameters as the editor uses them: the defaults the canvas and the
 * inspector bind `{ "$param": NAME }` references with (so a card's summary shows "3 rounds",
 * not an object), and the Inputs panel's fields for a run's values.
 */
import {
  describeParam,
  isParamRef,
  type ParamSpec,
  type Params,
  type ParamValue,
  paramDefaults,
  parseParamText,
} from '../../app/schema/params.ts';

let defaults: Readonly<Record<string, ParamValue>> = {};
let declared: Params | undefined;
let version = 0;

/**
 * Sets the parameters of the document on the canvas (the store calls it when they change);
 * node data read after this binds with their defaults.
 */
export function setDocumentParams(params: Params | undefined): void {
  if (params === declared) return;
  declared = params;
  defaults = paramDefaults(params);
  version++;
}

/** The defaults node data is bound with, and a number that changes whenever they do. */
export function canvasParams(): { values: Readonly<Record<string, ParamValue>>; version: number } {
  return { values: defaults, version };
}

/** A value as the canvas reads it: a reference to a parameter stands for its default. */
export function boundValue(value: unknown): unknown {
  return isParamRef(value) && Object.hasOwn(defaults, value.$param)
    ? defaults[value.$param]
    : value;
}

/** One parameter as the Inputs panel shows it. */
export interface ParamField {
  name: string;
  param: ParamSpec;
}

/** The document's parameters, in the order it declares them. */
export function paramFields(params: Params | undefined): ParamField[] {
  return Object.entries(params ?? {}).map(([name, param]) => ({ name, param }));
}

/**
 * What a field holds: what the person typed or ticked, else the default as the field reads it
 * (a list as comma-separated text, or JSON when an item holds a comma).
 */
export function paramFieldValue(
  field: ParamField,
  values: Readonly<Record<string, string | boolean>>,
): string | boolean {
  const typed = values[field.name];
  if (typed !== undefined) return typed;
  const value = field.param.default;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value))
    return value.some((item) => item.includes(',')) ? JSON.stringify(value) : value.join(', ');
  return String(value);
}

/**
 * The values to run with: every field the person set to other than its default, read by its
 * type; a value its parameter does not take is a problem named like the command line names it.
 */
export function collectParams(
  params: Params | undefined,
  values: Readonly<Record<string, string | boolean>>,
): { params: Record<string, ParamValue>; problems: string[] } {
  const out: Record<string, ParamValue> = {};
  const problems: string[] = [];
  for (const field of paramFields(params)) {
    const typed = values[field.name];
    if (typed === undefined) continue;
    const value = typeof typed === 'boolean' ? typed : parseParamText(field.param, typed);
    if (value === undefined) problems.push(describeParam(field.name, field.param));
    else if (JSON.stringify(value) !== JSON.stringify(field.param.default)) out[field.name] = value;
  }
  return { params: out, problems };
}
