/**
 * Every `society` command, in the order `society --help` lists them. Each is declared beside its
 * code by a `*.command.ts` module (arguments, options, help, and an action that imports the code
 * only when the command runs), so adding a command is its folder plus one line here.
 */
import type { Command } from 'commander';
import { registerTableLayouts } from '../../paper-tables/index.ts';
import { register as bundle } from './bundle/bundle.command.ts';
import { register as credit } from './credit/credit.command.ts';
import { register as cuisineworld } from './cuisineworld/cuisineworld.command.ts';
import { register as diff } from './diff.command.ts';
import { register as evals } from './eval/eval.command.ts';
import { register as exportRun } from './export.command.ts';
import { register as fork } from './fork.command.ts';
import { register as hosts } from './hosts.command.ts';
import { register as inspect } from './inspect.command.ts';
import { register as interview } from './interview/interview.command.ts';
import { register as itcma } from './itcma/itcma.command.ts';
import { register as mcp } from './mcp.command.ts';
import { register as nlsom } from './nlsom/nlsom.command.ts';
import { register as nodes } from './nodes.command.ts';
import { register as openagi } from './openagi/openagi.command.ts';
import { register as params } from './params.command.ts';
import { register as prices } from './prices.command.ts';
import { register as providers } from './providers.command.ts';
import { register as replay } from './replay.command.ts';
import { register as resume } from './resume.command.ts';
import { register as run } from './run.command.ts';
import { register as runs } from './runs.command.ts';
import { register as serveCommand } from './serve/serve.command.ts';
import { register as show } from './show.command.ts';
import { register as validate } from './validate.command.ts';
import { register as worker } from './worker.command.ts';
import { register as world } from './world/world.command.ts';

// The paper layouts `eval-show` and `eval-export` print stored evals in (closures only).
registerTableLayouts();

/** Adds a command (and its subcommands) to the program. */
export type RegisterCommand = (program: Command) => void;

export const COMMANDS: readonly RegisterCommand[] = [
  validate,
  params,
  nodes,
  inspect,
  run,
  resume,
  fork,
  credit,
  interview,
  diff,
  prices,
  providers,
  mcp,
  hosts,
  runs,
  serveCommand,
  exportRun,
  replay,
  show,
  evals,
  bundle,
  worker,
  openagi,
  cuisineworld,
  nlsom,
  itcma,
  world,
];
