/** `society prices`: shows the price table, after any `--set` and `--unset` the user gave. */
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { splitAssignment } from '../assignment.ts';
import { UsageError } from '../errors.ts';
import { openStore } from '../run-store.ts';

export interface PricesFlags {
  set: string[];
  unset: string[];
  db?: string;
}

export function pricesCommand(flags: PricesFlags): void {
  const store = openStore(flags.db);
  try {
    for (const assignment of flags.set) {
      const [model, value] = splitAssignment(assignment, '--set');
      const match = /^([\d.]+)\/([\d.]+)$/.exec(value);
      if (!match)
        throw new UsageError(
          `--set ${assignment}: give input/output dollars per million tokens, e.g. ${model}=0.15/0.60`,
        );
      store.setPrice(model, {
        inputPerMillion: Number(match[1]),
        outputPerMillion: Number(match[2]),
      });
    }
    for (const model of flags.unset) store.deletePrice(model);
    const own = store.priceTable();
    const table = { ...DEFAULT_PRICES, ...own };
    const rows = Object.entries(table).sort(([a], [b]) => a.localeCompare(b));
    process.stdout.write('model                          input $/M  output $/M\n');
    for (const [model, price] of rows) {
      process.stdout.write(
        `${model.padEnd(30)} ${price.inputPerMillion.toFixed(3).padStart(9)}  ${price.outputPerMillion.toFixed(3).padStart(10)}${model in own ? '  (yours)' : ''}\n`,
      );
    }
  } finally {
    store.close();
  }
}
