/**
 * Text from a model or a document is printed, never obeyed. A model's answer can hold terminal
 * control sequences — OSC 52 writes the clipboard, OSC 8 makes a link that says one thing and
 * opens another, CSI moves the cursor and rewrites lines already shown, DCS talks to the terminal
 * itself — and a shared document can hold them in any string. Two layers keep them off the
 * terminal:
 *
 * - `terminalText` removes every control sequence and control character but `\n` and `\t` from
 *   a piece of model or document text; the places that print such text call it before they add
 *   our own colours (picocolors), so our colours are kept and theirs are not.
 * - `guardTerminal` wraps stdout and stderr for the whole process (see main.ts), so a place that
 *   forgets cannot leak the dangerous ones: on a terminal it keeps only the cursor and colour CSI
 *   sequences society's own progress display writes, and removes OSC, DCS, APC, PM, SOS, every
 *   other escape and BEL; written to a file or a pipe it keeps none at all. A C1 control becomes
 *   the six characters `\u009b`, so `--json` output stays the same JSON.
 *
 * `--json` output needs nothing: JSON.stringify writes ESC as `\u001b`, which is six harmless
 * characters.
 */

/**
 * One control sequence or character. In order: a string-type sequence (OSC `ESC ]`, DCS `ESC P`,
 * SOS `ESC X`, PM `ESC ^`, APC `ESC _`, or their 8-bit C1 forms) up to its terminator (BEL,
 * `ESC \` or the 8-bit ST) or, unterminated, to the end of the text; a CSI sequence (`ESC [` or
 * 8-bit CSI) with its parameters and final byte; any other two-character escape; a lone ESC;
 * and the remaining C0 (but `\n` and `\t`), DEL and C1 characters.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u001b[\u0020-\u007e]?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The CSI sequences our own progress display writes: cursor moves, erasing, colours, cursor shown. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const OWN_CSI = /^\u001b\[[0-9;?]*[A-HJKSTfmhl]$/;

/** The 8-bit controls (CSI, OSC, DCS… as one character). */
const C1 = /[\u0080-\u009f]/g;

/**
 * Model or document text as it may be printed: every terminal control sequence and control
 * character removed, except line breaks and tabs. Call before adding colours.
 */
export function terminalText(text: string): string {
  // CONTROL leaves line breaks and tabs out, so they stay.
  return text.replace(CONTROL, '');
}

/**
 * What `guardTerminal` lets through: on a terminal (`tty`), line breaks, tabs, carriage returns
 * and the CSI sequences our own display writes; elsewhere, line breaks and tabs alone. C1
 * controls are written out as `\u0080`…`\u009f` text.
 */
export function guardedText(text: string, tty: boolean): string {
  // JSON.stringify leaves C1 controls raw; written as `\u009b` they stay valid JSON (the same
  // string once parsed) and are plain text to a terminal. Text printed as text has none left.
  const flat = text.replace(C1, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return flat.replace(CONTROL, (match) =>
    tty && (match === '\r' || OWN_CSI.test(match)) ? match : '',
  );
}

type Write = NodeJS.WriteStream['write'];

/** True for a chunk that could hold a control character (ESC, BEL, C0, DEL or a C1's UTF-8 lead). */
const mayHoldControl = (bytes: Uint8Array) =>
  bytes.some((b) => (b < 0x20 && b !== 0x0a && b !== 0x09) || b === 0x7f || b === 0xc2);

/**
 * Keeps control sequences from model and document text off `stream` until the returned function
 * is called (see the file's comment for what passes). Bytes that are not UTF-8 text (a picture
 * written to a pipe) pass untouched; text chunks, string or bytes, are guarded.
 */
export function guardTerminal(stream: NodeJS.WriteStream): () => void {
  const original = stream.write;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    const tty = stream.isTTY === true;
    let clean = chunk;
    if (typeof chunk === 'string') clean = guardedText(chunk, tty);
    else if (chunk instanceof Uint8Array && mayHoldControl(chunk)) {
      try {
        clean = guardedText(decoder.decode(chunk), tty);
      } catch {
        // Not text: bytes someone asked for, written as they are.
      }
    }
    return (original as (...args: unknown[]) => boolean).call(this, clean, ...rest);
  } as Write;
  stream.write = write;
  return () => {
    if (stream.write === write) stream.write = original;
  };
}
