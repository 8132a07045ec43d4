/**
 * Declarative rules for any node type (a state node's updates, a router's branches): JsonLogic
 * (jsonlogic.com) trees, interpreted by json-logic-js and
 * never compiled or evaluated as code. Only the operators below may appear; `method`, which
 * would call functions on values, is removed from the interpreter, and every rule is checked
 * against this list before it is read, at load and at run time.
 */
import jsonLogic from 'json-logic-js';

/** Arithmetic and logic, plus the functions affect models use. */
const OWN_OPERATIONS: Record<string, (...args: number[]) => number> = {
  tanh: (x) => Math.tanh(Number(x)),
  sigmoid: (x) => 1 / (1 + Math.exp(-Number(x))),
  abs: (x) => Math.abs(Number(x)),
  sqrt: (x) => Math.sqrt(Number(x)),
  exp: (x) => Math.exp(Number(x)),
  ln: (x) => Math.log(Number(x)),
  round: (x, digits = 0) => {
    const f = 10 ** Math.max(0, Math.min(12, Number(digits)));
    return Math.round(Number(x) * f) / f;
  },
  clamp: (x, lo, hi) => Math.min(Number(hi), Math.max(Number(lo), Number(x))),
};

const BUILT_IN = [
  'var',
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '>',
  '>=',
  '<',
  '<=',
  'max',
  'min',
  '+',
  '-',
  '*',
  '/',
  '%',
  // Membership: a value in a list, or a text inside another (a router's keyword rules).
  'in',
] as const;

/** Every operator a rule may use. */
export const OPERATORS: readonly string[] = [...BUILT_IN, ...Object.keys(OWN_OPERATIONS)];

jsonLogic.rm_operation('method');
for (const [name, op] of Object.entries(OWN_OPERATIONS)) jsonLogic.add_operation(name, op);

const MAX_DEPTH = 32;
const MAX_NODES = 2000;

/** A problem in a rule, with its path inside the rule. */
export interface RuleProblem {
  path: PropertyKey[];
  message: string;
}

/** What is wrong with a rule's shape: unknown operators, objects that are not one operator. */
export function ruleProblems(rule: unknown): RuleProblem[] {
  const problems: RuleProblem[] = [];
  let nodes = 0;
  const walk = (value: unknown, path: PropertyKey[], depth: number) => {
    if (++nodes > MAX_NODES) {
      if (nodes === MAX_NODES + 1)
        problems.push({ path, message: `a rule may have at most ${MAX_NODES} parts` });
      return;
    }
    if (depth > MAX_DEPTH) {
      problems.push({ path, message: `a rule may nest at most ${MAX_DEPTH} deep` });
      return;
    }
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, [...path, i], depth + 1);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const keys = Object.keys(value);
    if (keys.length !== 1) {
      problems.push({
        path,
        message: `an operation is an object with one operator, e.g. {"+": [1, 2]} (this one has ${keys.length} keys)`,
      });
      return;
    }
    const op = keys[0]!;
    if (!OPERATORS.includes(op)) {
      problems.push({
        path: [...path, op],
        message: `unknown operator "${op}" (known: ${OPERATORS.join(' ')})`,
      });
      return;
    }
    walk((value as Record<string, unknown>)[op], [...path, op], depth + 1);
  };
  walk(rule, [], 0);
  return problems;
}

/**
 * A rule as a function of its data, checked once; throws with the first problem if the rule is
 * not allowed.
 */
export function compileRule(rule: unknown): (data: Record<string, unknown>) => unknown {
  const problem = ruleProblems(rule)[0];
  if (problem) throw new Error(problem.message);
  return (data) => jsonLogic.apply(rule as Parameters<typeof jsonLogic.apply>[0], data);
}

/** How many parts (operations, values) a rule has: what evaluating it once costs, roughly. */
export function ruleParts(rule: unknown): number {
  if (Array.isArray(rule)) return rule.reduce((sum: number, item) => sum + ruleParts(item), 1);
  if (rule === null || typeof rule !== 'object') return rule === undefined ? 0 : 1;
  return Object.values(rule).reduce((sum: number, value) => sum + ruleParts(value), 1);
}
