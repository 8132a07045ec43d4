/**
 * A paper's figure beside ours, cell by cell: what the paper printed (and where), our mean with
 * its 95% interval, and the difference. Every table command prints its cells through this, so
 * "paper", "ours" and "Δ" read the same way in every table, and a cell the paper does not have
 * says so instead of looking like a zero.
 */

/** A figure the paper printed, and where (e.g. "Table 4, 5 rounds"). */
export interface PaperFigure {
  value: number;
  where: string;
}

/** Our side of a cell: the mean over the runs, its 95% interval and how many runs. */
export interface OurFigure {
  mean: number;
  ci95: [number, number];
  n: number;
}

/** One cell, compared: numbers for `--json`, texts for the terminal. */
export interface PaperComparison {
  paper: number | null;
  ours: OurFigure | null;
  /** ours − paper, when both exist. */
  diff: number | null;
  /** Whether the paper's figure falls inside our interval. */
  paperInInterval: boolean | null;
  text: { paper: string; ours: string; diff: string };
}

/** What a cell without a paper figure reads as. */
export const NOT_IN_PAPER = 'not in paper';

/**
 * Compares our figure with the paper's. `format` prints a value on the table's scale (e.g.
 * `(x) => (x * 100).toFixed(1) + '%'`); `formatDiff` the difference (default: `format` with a
 * sign). A missing side reads `not in paper` or `no run`, and its difference `–`.
 */
export function compareWithPaper(
  paper: PaperFigure | number | null | undefined,
  ours: OurFigure | null | undefined,
  format: (x: number) => string,
  formatDiff?: (x: number) => string,
): PaperComparison {
  const paperValue =
    paper === null || paper === undefined ? null : typeof paper === 'number' ? paper : paper.value;
  const our = ours ?? null;
  const diff = paperValue !== null && our !== null ? our.mean - paperValue : null;
  const signed =
    formatDiff ?? ((x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${format(Math.abs(x))}`);
  return {
    paper: paperValue,
    ours: our,
    diff,
    paperInInterval:
      paperValue !== null && our !== null && our.n > 1
        ? paperValue >= our.ci95[0] && paperValue <= our.ci95[1]
        : null,
    text: {
      paper: paperValue === null ? NOT_IN_PAPER : format(paperValue),
      ours:
        our === null
          ? 'no run'
          : our.n > 1
            ? `${format(our.mean)} [${format(our.ci95[0])}, ${format(our.ci95[1])}]`
            : `${format(our.mean)} (n=1, no interval)`,
      diff: diff === null ? '–' : signed(diff),
    },
  };
}

/** The three column headings a compared cell prints under, for a column named `name`. */
export function comparisonHeadings(name: string): [string, string, string] {
  return [`${name} paper`, `${name} ours [95% CI]`, `${name} Δ`];
}
