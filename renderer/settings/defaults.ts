/**
 * The default models from settings, as the editor applies them: a new document gets a `default`
 * (text) and a `vision` profile from them, and a new agent or summarize node picks the document's
 * profile that matches the text default. The backend keeps them (settings.defaults.*); the page
 * holds the last answer, starting from the built-in defaults until it arrives.
 */
import { create } from 'zustand';
import { BUILTIN_MODEL_DEFAULTS, type ModelDefaults } from '../../app/api/contract.ts';
import type { GraphDocument } from '../../app/schema/document.ts';
import { api } from '../api.ts';

type Models = NonNullable<GraphDocument['models']>;

export const useModelDefaults = create<{ defaults: ModelDefaults; loaded: boolean }>()(() => ({
  defaults: BUILTIN_MODEL_DEFAULTS,
  loaded: false,
}));

/** The defaults the editor uses now. */
export function modelDefaults(): ModelDefaults {
  return useModelDefaults.getState().defaults;
}

/** Asks the backend for the stored defaults; a failure keeps the ones held. */
export async function loadModelDefaults(): Promise<void> {
  try {
    const defaults = await api().call('settings.defaults.get', {});
    useModelDefaults.setState({ defaults, loaded: true });
  } catch {
    // The built-in defaults still make a valid document; settings shows the error if opened.
  }
}

/** A new document's model profiles: `default` for text, `vision` for images. */
export function documentModels(defaults: ModelDefaults): Models {
  return {
    default: { provider: defaults.text.provider, model: defaults.text.model },
    vision: { provider: defaults.vision.provider, model: defaults.vision.model, vision: true },
  };
}

/**
 * The profile a new node that needs a model should use: the document's profile for the text
 * default (a non-vision one first), else undefined so the node takes the document's first.
 * Documents are never changed behind the user's back to add one.
 */
export function profileForNewNode(
  models: GraphDocument['models'],
  defaults: ModelDefaults,
): string | undefined {
  const entries = Object.entries(models ?? {});
  const matching = entries.filter(
    ([, m]) => m.provider === defaults.text.provider && m.model === defaults.text.model,
  );
  return (matching.find(([, m]) => m.vision !== true) ?? matching[0])?.[0];
}
