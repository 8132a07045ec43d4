/** `--rubric NAME|FILE.json` (society eval, society rate): a built-in rubric or a file of one. */
import { readFileSync } from 'node:fs';
import { type Rubric, RubricError, resolveRubric } from '../../../eval/rubrics.ts';
import { UsageError } from '../../errors.ts';

/** The rubric the flag names; a one-line UsageError when there is none or the file is wrong. */
export function rubricFlag(value: string): Rubric {
  try {
    return resolveRubric(value, (file) => readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof RubricError) throw new UsageError(`--rubric: ${error.message}`);
    throw error;
  }
}
