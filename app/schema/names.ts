/**
 * Names that would resolve through a plain object's prototype. A document, a command line or a
 * dataset names things (model profiles, parameters, inputs, node ids) that end up as keys of
 * objects: `__proto__` as a key replaces an object's prototype, and `constructor` or `toString`
 * are "found" in any object by `name in map` or `map[name]`. Such names are refused where they
 * are given, so no lookup has to remember to guard against them.
 */

/** Whether `name` is `__proto__`, `prototype` or any property every JavaScript object has. */
export function isPrototypeName(name: string): boolean {
  return name === 'prototype' || name in Object.prototype;
}

/** The one line said when a prototype name is given as `what` ("a model profile name", …). */
export function prototypeNameMessage(name: string, what: string): string {
  return `"${name}" cannot be ${what}: it is reserved (every JavaScript object has it); choose another name`;
}
