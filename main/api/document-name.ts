/**
 * What a workspace document may be called. The page names files, never paths (S9): a name is a
 * plain file name ending in `.society.json`, so nothing it sends can reach outside the folder.
 * Beyond that, a name must mean what it shows and open on every system a workspace may move to:
 * no characters that reorder or hide text, no lookalikes of a slash, no names Windows keeps for
 * devices. Each refusal says which rule the name breaks, and shows the offending character by its
 * code point (printing a text-direction override would scramble the message itself).
 */
import path from 'node:path';
import { ApiError } from './errors.ts';

/** The extension of every document the workspace holds. */
export const DOCUMENT_EXTENSION = '.society.json';

/** Longest name accepted; file systems commonly allow 255 bytes. */
const MAX_NAME_LENGTH = 200;

/**
 * Separators and parent references would leave the folder; the rest are invalid on Windows, so a
 * workspace can move between machines.
 */
const SEPARATOR_OR_RESERVED = /[/\\:*?"<>|]/;

/**
 * Control characters (C0, DEL, C1) and the line and paragraph separators: never part of a name
 * a person typed, and some end or split a line in a listing or a log.
 */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * Bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069),
 * and the direction marks (U+200E, U+200F, U+061C). `evil\u202Enosj.yteicos.txt` shows as a
 * document while being something else; in a file name they only ever deceive.
 */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

/**
 * Characters drawn like a slash or a backslash: division slash, fraction slash, big solidus,
 * fullwidth solidus and reverse solidus, set minus. `reports∕q3.society.json` reads as a path.
 */
const LOOKALIKE_SLASH = /[\u2215\u2044\u29F8\uFF0F\uFF3C\u2216]/;

/**
 * Names Windows reserves for devices, whatever their extension and case (`con.society.json`
 * opens the console there); including the superscript-digit ports Windows also reserves.
 */
const DEVICE = /^(?:CON|PRN|AUX|NUL|COM[1-9¹²³]|LPT[1-9¹²³])$/i;

/** Half of a character: what a broken encoding leaves; no file system stores it faithfully. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Code points to show escaped when a name is quoted in a message. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * Checks a document name from the page and returns it; throws an ApiError saying what is wrong
 * with anything that is not a plain `NAME.society.json` file name.
 */
export function checkDocumentName(name: string): string {
  const shown = quoted(name);
  if (!name.endsWith(DOCUMENT_EXTENSION) || name.length === DOCUMENT_EXTENSION.length) {
    throw new ApiError(`${shown} is not a document name: it must end in ${DOCUMENT_EXTENSION}`);
  }
  if (LONE_SURROGATE.test(name)) {
    throw new ApiError(
      `${shown} is not a plain file name: it holds a broken character (a lone surrogate)`,
    );
  }
  const control = name.match(CONTROL);
  if (control) {
    throw new ApiError(
      `${shown} is not a plain file name: it holds the control character ${codePoint(control[0])}`,
    );
  }
  const bidi = name.match(BIDI);
  if (bidi) {
    throw new ApiError(
      `${shown} holds the invisible text-direction character ${codePoint(bidi[0])}, which can make a name read as another: remove it`,
    );
  }
  const slash = name.match(LOOKALIKE_SLASH);
  if (slash) {
    throw new ApiError(
      `${shown} holds "${slash[0]}" (${codePoint(slash[0])}), which looks like a path separator: documents are named, not given by path`,
    );
  }
  if (
    SEPARATOR_OR_RESERVED.test(name) ||
    name.includes('..') ||
    path.isAbsolute(name) ||
    path.win32.isAbsolute(name) ||
    path.basename(name) !== name
  ) {
    throw new ApiError(
      `${shown} is not a plain file name: documents are named, not given by path (no / \\ .. or drive)`,
    );
  }
  if (name.startsWith('.') || name.trim() !== name) {
    throw new ApiError(`${shown} may not start with a dot or a space, or end with a space`);
  }
  // Windows ignores trailing spaces before the first dot: `CON .society.json` is the console.
  const stem = name.slice(0, name.indexOf('.')).trimEnd();
  if (DEVICE.test(stem)) {
    throw new ApiError(
      `${shown} cannot be a file name on Windows, which keeps ${stem.toUpperCase()} for a device: choose another name`,
    );
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw new ApiError(`a document name may be at most ${MAX_NAME_LENGTH} characters`);
  }
  return name;
}

/** A name quoted for a message: shortened, with invisible characters written as escapes. */
function quoted(name: string): string {
  const short = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  return `"${short.replace(/["\\]/g, '\\$&').replace(UNPRINTABLE, (c) => `\\u{${hex(c)}}`)}"`;
}

function codePoint(char: string): string {
  return `U+${hex(char)}`;
}

function hex(char: string): string {
  return (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}
