/**
 * A word diff of two texts for the Diff tab: which words of the parent's (a's) text the fork
 * (b) no longer says, and which it says anew. Words and the spaces between them are compared
 * as they are; a text too long to compare word by word is marked whole.
 */

/** A run of text, and whether it is only on its side (removed in a, added in b). */
export interface WordPart {
  text: string;
  changed: boolean;
}

/** Word-by-word comparisons above this many cells (a's words × b's words) mark the text whole. */
const MAX_CELLS = 4_000_000;

const words = (text: string) => text.split(/(\s+)/).filter((w) => w !== '');

/** Joins neighbouring parts of the same kind, so a changed phrase is one mark. */
function merged(parts: WordPart[]): WordPart[] {
  const out: WordPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last && last.changed === p.changed) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

/**
 * Spaces go with their neighbours: marked between two changed words (one mark for the phrase),
 * never marked alone.
 */
function spaced(parts: WordPart[]): WordPart[] {
  return parts.map((p, k) =>
    p.text.trim() ? p : { ...p, changed: !!parts[k - 1]?.changed && !!parts[k + 1]?.changed },
  );
}

/** `a` and `b` as parts, the words only one of them has marked changed (longest common subsequence). */
export function wordDiff(a: string, b: string): { a: WordPart[]; b: WordPart[] } {
  const x = words(a);
  const y = words(b);
  if (x.length * y.length > MAX_CELLS) {
    return { a: [{ text: a, changed: a !== b }], b: [{ text: b, changed: a !== b }] };
  }
  // lcs[i][j]: the length of the longest common run of words of x[i..] and y[j..].
  const width = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        x[i] === y[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const pa: WordPart[] = [];
  const pb: WordPart[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      pa.push({ text: x[i++]!, changed: false });
      pb.push({ text: y[j++]!, changed: false });
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      pa.push({ text: x[i++]!, changed: true });
    } else {
      pb.push({ text: y[j++]!, changed: true });
    }
  }
  while (i < x.length) pa.push({ text: x[i++]!, changed: true });
  while (j < y.length) pb.push({ text: y[j++]!, changed: true });
  return { a: merged(spaced(pa)), b: merged(spaced(pb)) };
}
