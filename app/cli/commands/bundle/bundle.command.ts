/**
 * `society eval-export` and `society eval-import`: their arguments, options and help; their code
 * loads only when one runs.
 */
import type { Command } from 'commander';

/** Adds `society eval-export` and `society eval-import` to the program. */
export function register(program: Command): void {
  program
    .command('eval-export')
    .description(
      'write an eval as a folder to publish or share: documents as run, items (inputs, outputs, scores), models answered with, report, tables (text, CSV, Markdown, LaTeX), charts (SVG, PNG), runs, and a manifest of sha256',
    )
    .argument('<id>', 'an eval id or a unique prefix of one')
    .argument('<dir>', 'a new or empty folder')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, dir: string, flags: { db?: string }) =>
      (await import('./export.ts')).evalExportCommand(id, dir, flags),
    );

  program
    .command('eval-import')
    .description(
      "open an eval bundle in this store (every file checked against the manifest's sha256); --rescore scores its predictions again, calling no model",
    )
    .argument('<dir>', 'a folder written by society eval-export')
    .option(
      '--rescore <SCORER>',
      'also score the stored predictions again with a text scorer (exact, choice, contains, number, f1, rougeL, cos), as a new eval',
    )
    .option('--db <FILE>', 'the run store')
    .action(async (dir: string, flags: { db?: string; rescore?: string }) => {
      process.exitCode = await (await import('./import.ts')).evalImportCommand(dir, flags);
    });
}
