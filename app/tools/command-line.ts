/**
 * A stdio MCP server's command line as a person types it and as they are shown it: split into
 * words as a shell would split quoted text (nothing expanded, nothing run), and written back with
 * the quotes that split into the same words, so what a confirm shows is exactly what will run.
 * Shared by `society mcp --add NAME --command` and the desktop app's Settings.
 */

/**
 * Splits a command line into words as a shell would for quoting only ('…', "…", \ before a
 * character); nothing is expanded. Throws one line when a quote is not closed or there is no word.
 */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`a ${quote} is not closed`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new Error('the command line is empty');
  return words;
}

/** Words a shell reads as they are: anything else is single-quoted. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A program and its arguments as one line that `splitCommandLine` splits back into them. */
export function quoteCommandLine(words: readonly string[]): string {
  return words.map((w) => (PLAIN.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(' ');
}
