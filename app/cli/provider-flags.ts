/** The `--provider` flag shared by the commands that run societies. */
import { builtinProfiles, type ProfileOverride } from '../providers/profiles.ts';
import { splitAssignment } from './assignment.ts';
import { UsageError } from './errors.ts';
import { learnProviderKeys } from './redaction.ts';

/**
 * `--provider NAME=URL[,key=ENV_VAR][,kind=huggingface]` adds or redirects a provider: an
 * OpenAI-compatible one, or with kind=huggingface an expert-model endpoint (a self-hosted TGI
 * or an Inference Endpoint).
 */
export function parseProviders(assignments: string[]): Record<string, ProfileOverride> {
  const overrides: Record<string, ProfileOverride> = {};
  for (const assignment of assignments) {
    const [name, rest] = splitAssignment(assignment, '--provider');
    const [url, ...options] = rest.split(',');
    if (!url || !URL.canParse(url))
      throw new UsageError(`--provider ${name}: "${url}" is not a URL`);
    const key = options.find((o) => o.startsWith('key='))?.slice(4);
    // Redirecting a built-in provider keeps its kind (hf-inference stays an expert provider).
    const kind =
      options.find((o) => o.startsWith('kind='))?.slice(5) ??
      builtinProfiles({})[name]?.kind ??
      'openai-compatible';
    if (kind !== 'openai-compatible' && kind !== 'huggingface') {
      throw new UsageError(`--provider ${name}: kind must be openai-compatible or huggingface`);
    }
    overrides[name] = { kind, baseUrl: url, apiKeyEnv: key ?? '' };
  }
  // The process may now send these keys, so it must hide them everywhere it writes.
  learnProviderKeys(Object.values(overrides));
  return overrides;
}
