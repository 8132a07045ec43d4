/**
 * Counts as a person writes them: "1 call", "2 calls", "0 tokens". Numbers are grouped
 * ("12,400 tokens"); `many` is the plural when adding an "s" is wrong.
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
