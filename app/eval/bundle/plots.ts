/**
 * The report's charts as files of their own: SVG, with the colours the report's page gives them
 * written into the file (the page styles them by class), and PNG rendered from that SVG.
 */
import { scoreBarsSvg, scoreCostSvg } from '../report-charts.ts';
import type { VariantSummary } from '../types.ts';

/** The report page's chart rules, in its light theme, so the file draws alone. */
const STYLE =
  '<style>.grid{stroke:#d8dde5}.axis{stroke:#5f6b7a}.tick{fill:#5f6b7a}.label,.value{fill:#1b1f27}.whisker{stroke:#1b1f27;stroke-width:1.5}.whisker-light{stroke-width:2;opacity:.6}.failed{fill:#c62828}</style>';

/** An inline chart made a standalone file: its style and a white background inside it. */
function standalone(svg: string): string {
  return svg.replace(
    /^(<svg[^>]*>)/,
    `<?xml version="1.0" encoding="UTF-8"?>\n$1${STYLE}<rect width="100%" height="100%" fill="#ffffff"/>`,
  );
}

/** The eval's two charts by file stem: scores with their intervals, and score against cost. */
export function chartSvgs(variants: readonly VariantSummary[]): Record<string, string> {
  return {
    scores: `${standalone(scoreBarsSvg(variants))}\n`,
    'score-cost': `${standalone(scoreCostSvg(variants))}\n`,
  };
}

/** The chart drawn at twice its size (for print), as PNG bytes. */
export async function svgToPng(svg: string): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp(Buffer.from(svg), { density: 144 }).png().toBuffer();
}
