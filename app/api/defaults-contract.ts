/** The `settings.defaults.*` methods: the models the editor gives what it creates. */
import { z } from 'zod';

const ModelChoice = z.object({
  /** A provider profile's name: built in or custom. */
  provider: z.string().min(1).max(64),
  model: z.string().min(1).max(200),
});

/**
 * The models the editor gives what it creates: a new document's model profiles (`default` for
 * text, `vision` for images), and the profile a new agent or summarize node picks.
 */
export const ModelDefaultsSchema = z.object({ text: ModelChoice, vision: ModelChoice });
export type ModelDefaults = z.infer<typeof ModelDefaultsSchema>;

/** The defaults until the user chooses others. */
export const BUILTIN_MODEL_DEFAULTS: ModelDefaults = {
  text: { provider: 'openai', model: 'gpt-4o-mini' },
  vision: { provider: 'openai', model: 'gpt-4o-mini' },
};

/** The `settings.defaults.*` entries of the API contract (app/api/contract.ts). */
export const defaultsContract = {
  'settings.defaults.get': {
    params: z.object({}),
    result: ModelDefaultsSchema,
  },
  'settings.defaults.set': {
    params: ModelDefaultsSchema,
    result: ModelDefaultsSchema,
  },
} as const;
