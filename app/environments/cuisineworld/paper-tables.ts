/**
 * MindAgent's published GPT-4 figures (Gong et al., *MindAgent: Emergent Gaming Interaction*):
 * Tables 4–6 (2, 3 and 4 agents on every level), Table 8 (the prompt ablations, 2 agents) and
 * Table 9 (3 and 4 agents shown a 2-agent demonstration), as completed/total per τ and the CoS
 * the paper printed. Facts from the paper, so a sweep can print them beside its own cells.
 */
import { TAU_ALPHAS } from './levels.ts';

/** The paper's column order in Tables 4–6. */
const LEVEL_ORDER = [
  'level_0',
  'level_1',
  'level_7',
  'level_2',
  'level_4',
  'level_8',
  'level_3',
  'level_9',
  'level_10',
  'level_5',
  'level_11',
  'level_12',
];

/** One table's rows: τ1…τ5 as `completed/total` per column, then the printed CoS per column. */
interface PrintedTable {
  rows: string[];
  cos: number[];
}

const TABLE_4: PrintedTable = {
  rows: [
    '18/54 18/56 12/31 14/34 12/30 3/30 10/26 7/20 7/23 6/23 6/21 10/36',
    '18/31 17/34 10/23 13/26 12/22 9/22 10/17 8/11 6/12 5/13 4/14 8/21',
    '18/25 19/25 10/17 16/18 11/18 6/16 11/13 6/8 7/10 8/10 9/9 8/17',
    '18/18 18/19 12/12 11/14 11/12 7/11 12/12 8/8 9/9 6/7 8/9 11/12',
    '18/18 17/17 12/12 11/13 11/13 9/9 11/11 4/5 7/7 8/8 8/8 9/12',
  ],
  cos: [0.727, 0.706, 0.682, 0.687, 0.664, 0.504, 0.764, 0.725, 0.701, 0.661, 0.692, 0.559],
};
const TABLE_5: PrintedTable = {
  rows: [
    '21/55 24/55 16/33 17/33 9/28 6/32 12/25 5/20 8/21 7/22 7/22 9/26',
    '20/31 25/33 11/22 4/24 13/24 7/21 14/20 9/12 9/13 7/14 8/14 10/23',
    '22/25 21/26 17/17 11/20 9/17 4/15 13/14 8/8 12/12 7/7 9/10 10/16',
    '22/22 20/21 14/14 9/13 7/10 6/10 10/10 6/7 10/10 5/8 7/8 11/13',
    '20/20 15/16 11/12 10/14 10/11 8/9 12/12 6/6 8/8 5/5 8/8 6/10',
  ],
  cos: [0.781, 0.778, 0.78, 0.528, 0.6, 0.455, 0.822, 0.771, 0.815, 0.689, 0.733, 0.57],
};
const TABLE_6: PrintedTable = {
  rows: [
    '22/54 18/55 17/34 13/34 8/28 9/33 16/27 5/20 8/23 5/22 8/22 8/35',
    '24/32 21/33 14/24 14/25 12/24 11/22 16/19 7/12 9/15 7/14 6/12 12/23',
    '23/25 23/26 13/18 11/19 10/17 11/17 15/17 8/9 11/11 7/8 10/11 9/17',
    '22/22 21/22 14/14 7/15 10/13 10/12 12/13 9/9 10/10 6/7 8/8 9/13',
    '14/18 20/20 14/14 7/13 9/11 7/8 12/12 5/5 7/7 6/6 3/5 7/10',
  ],
  cos: [0.771, 0.761, 0.761, 0.505, 0.592, 0.626, 0.848, 0.744, 0.79, 0.692, 0.675, 0.534],
};

/** Single-column tables (level 3): τ1…τ5 as `completed/total`, then the printed CoS. */
interface PrintedColumn {
  taus: string;
  cos: number;
}

/**
 * Table 8 (2 agents; the level is not labelled, but its GPT-4 column is Table 4's level 3) and
 * Table 9 (level 3), by the sweep's variant name.
 */
const ABLATIONS: Record<string, { table: string; agents: number; column: PrintedColumn }> = {
  'demo-steps-2': {
    table: 'Table 8, "GPT-4 w/ just few-step" (level 3 by its full column)',
    agents: 2,
    column: { taus: '8/26 11/19 11/13 9/11 10/10', cos: 0.71 },
  },
  'no-hints': {
    table: 'Table 8, "GPT-4 w/o inference knowledge" (level 3 by its full column)',
    agents: 2,
    column: { taus: '8/25 9/17 10/12 8/9 9/9', cos: 0.714 },
  },
  'no-feedback': {
    table: 'Table 8, "GPT-4 w/o feedback" (level 3 by its full column)',
    agents: 2,
    column: { taus: '4/25 4/17 4/12 1/9 5/7', cos: 0.311 },
  },
};
const TABLE_9: Record<number, PrintedColumn> = {
  4: { taus: '14/27 16/20 15/16 13/13 12/12', cos: 0.851 },
  3: { taus: '11/25 11/19 12/14 12/12 11/11', cos: 0.775 },
};

/** A paper cell: completed/total as printed, and its value. */
export interface PaperCell {
  completed: number;
  total: number;
  value: number;
}

/** The paper's figures for one level and agent count of a sweep variant. */
export interface PaperColumn {
  /** Where they come from: table, column, model. */
  where: string;
  /** By τ1…τ5. */
  taus: PaperCell[];
  cos: number;
}

function cell(text: string): PaperCell {
  const [completed, total] = text.split('/').map(Number) as [number, number];
  return { completed, total, value: completed / total };
}

/**
 * The paper's GPT-4 figures for a level and agent count under a sweep variant (`full`, or an
 * ablation named as the sweep names it), or null where the paper has no such column.
 */
export function paperColumn(variant: string, level: string, agents: number): PaperColumn | null {
  if (variant === 'full') {
    const table = { 2: TABLE_4, 3: TABLE_5, 4: TABLE_6 }[agents];
    const index = LEVEL_ORDER.indexOf(level);
    if (!table || index < 0) return null;
    return {
      where: `Table ${agents + 2} (${agents} agents), GPT-4 (gpt-4-0613)`,
      taus: table.rows.map((row) => cell(row.split(' ')[index]!)),
      cos: table.cos[index]!,
    };
  }
  if (level !== 'level_3') return null;
  const ablation = ABLATIONS[variant];
  if (ablation && ablation.agents === agents) {
    return {
      where: `${ablation.table}, GPT-4 (gpt-4-0613)`,
      taus: ablation.column.taus.split(' ').map(cell),
      cos: ablation.column.cos,
    };
  }
  const demo = variant === 'demo-agents-2' ? TABLE_9[agents] : undefined;
  if (demo) {
    return {
      where: `Table 9, "${agents}agent using 2agent demo", GPT-4 (gpt-4-0613)`,
      taus: demo.taus.split(' ').map(cell),
      cos: demo.cos,
    };
  }
  return null;
}

/** The paper's τ index (0…4) of an order-frequency factor, or -1 for one it did not run. */
export function paperTau(alpha: number): number {
  return TAU_ALPHAS.indexOf(alpha as (typeof TAU_ALPHAS)[number]);
}
