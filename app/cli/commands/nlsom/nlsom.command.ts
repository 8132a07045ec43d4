/** `society nlsom eval` (NLSOM's A-OKVQA accuracy): arguments, options and help. */
import type { Command } from 'commander';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { budgetOptions } from '../../budget-options.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { NlsomCaptionFlags } from './caption.ts';
import type { NlsomEgoFlags } from './ego.ts';
import type { NlsomEvalFlags } from './eval.ts';
import type { Nlsom3dFlags } from './threed.ts';

/** `society nlsom` and its `eval` subcommand. */
export function register(program: Command): void {
  const nlsom = program
    .command('nlsom')
    .description("NLSOM's experiments: the VQA society's accuracy over an A-OKVQA file");
  const command = nlsom
    .command('eval')
    .description(
      'run the NLSOM VQA society over A-OKVQA multiple-choice questions and print its accuracy with a 95% interval',
    )
    .argument(
      '<data>',
      "A-OKVQA questions: its own JSON (aokvqa_v1p0_val.json), NLSOM's _!_ format (image_!_question_!_[options]_!_index) or JSONL",
    )
    .option(
      '--images <DIR>',
      'the COCO photos (val2017/NAME.jpg or NAME.jpg inside), found by file name (default: the paths as written, relative to the data file)',
    )
    .option(
      '--require-images',
      "fail a question whose photo is missing (default: it runs with the template's example picture, reported apart)",
    )
    .option(
      '--structure <S>',
      "Table 4's rows: monarchy, monarchy+rtk, monarchy+rtk+rtc, democracy, a list of them, or table4 (all four)",
      'monarchy',
    )
    .option(
      '--members <KIND>',
      'chat (vision chat models, the default) or experts (Hugging Face VQA models: BLIP-2, OFA, mPLUG)',
    )
    .option(
      '--set <NAME=VALUE>',
      'a template parameter, e.g. rounds=5 (rounds=1,3,5,10: a row each, Table 1) or rtk=true (see society params FILE)',
      collect,
      [],
    )
    .option('--model <PROFILE=PROVIDER:MODEL>', "a model profile's model (repeatable)", collect, [])
    .option('--provider <NAME=URL>', 'add or redirect a provider (repeatable)', collect, [])
    .option(
      '--document <FILE>',
      'another VQA society taking question and image (default: the template)',
    )
    .option('--limit <N>', 'only the first N questions')
    .option('--concurrency <K>', 'runs at once (default: 4)')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', 'print one JSON object: the eval summary, the images found and the accuracy')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(budgetOptions(command)).action(async (data: string, flags: NlsomEvalFlags) => {
    process.exitCode = await (await import('./eval.ts')).nlsomEvalCommand(data, flags);
  });
  registerNlsomTables(nlsom);
}

/** What both table commands take besides their data. */
function common(command: Command): Command {
  return command
    .option('--set <NAME=VALUE>', 'a template parameter (see society params FILE)', collect, [])
    .option('--model <PROFILE=PROVIDER:MODEL>', "a model profile's model (repeatable)", collect, [])
    .option('--provider <NAME=URL>', 'add or redirect a provider (repeatable)', collect, [])
    .option('--limit <N>', 'only the first N items')
    .option('--concurrency <K>', 'runs at once (default: 4)')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', "print one JSON object: the eval summary and the paper's table beside ours")
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
}

/**
 * Registers `ego-eval` (NLSOM Table 7), `3d-eval` (Table 6) and `caption-eval` (Sec. 2.2) under
 * `society nlsom`.
 */
export function registerNlsomTables(nlsom: Command): void {
  const ego = nlsom
    .command('ego-eval')
    .description(
      "run NLSOM's egocentric retrieval debate over Ego4D NLQ queries and print Table 7: R1/R3/R5 plain, @1 s and @10 s, beside the paper's",
    )
    .argument(
      '<data>',
      "Ego4D NLQ's annotation file (nlq_val.json: videos → clips → annotations → language_queries)",
    )
    .option(
      '--narrations <FILE|DIR>',
      "Ego4D's narration.json, or a folder of VIDEO_UID.json (its entry) or VIDEO_UID.txt (SECONDS text lines)",
    )
    .option(
      '--structure <S>',
      'monarchy, democracy, or both: monarchy,democracy',
      'monarchy,democracy',
    );
  evalRunOptions(budgetOptions(common(ego))).action(async (data: string, flags: NlsomEgoFlags) => {
    process.exitCode = await (await import('./ego.ts')).nlsomEgoCommand(data, flags);
  });
  const threed = nlsom
    .command('3d-eval')
    .description(
      "run NLSOM's 3D society over prompts and print Table 6: the CLIP score of the original prompt's design and of the society's refined prompt, and their difference, beside the paper's",
    )
    .argument('<prompts>', 'a text file, one prompt a line, or JSONL with a "prompt" field');
  evalRunOptions(budgetOptions(common(threed))).action(
    async (prompts: string, flags: Nlsom3dFlags) => {
      process.exitCode = await (await import('./threed.ts')).nlsom3dCommand(prompts, flags);
    },
  );
  const caption = nlsom
    .command('caption-eval')
    .description(
      "run NLSOM's captioning society over TARA's news photos and print the similarity ×100 between each caption and its article's named entities, beside the paper's 20.6 (Sec. 2.2)",
    )
    .argument(
      '<data>',
      "TARA's records (gold_test.jsonl: image_url and lead_paragraph per line), or a JSON array of them",
    )
    .option(
      '--images <DIR>',
      "the downloaded photos, named as TARA's eval.py names them (default: the data file's folder)",
    );
  evalRunOptions(budgetOptions(common(caption))).action(
    async (data: string, flags: NlsomCaptionFlags) => {
      process.exitCode = await (await import('./caption.ts')).nlsomCaptionCommand(data, flags);
    },
  );
}
