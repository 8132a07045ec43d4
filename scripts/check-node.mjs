// Stops at once, in one line, on a Node.js too old for Society Studio. It runs first in every
// entry point (the `society` command and the npm scripts), before anything that would fail on an
// old Node with a cryptic message ("bad option: --experimental-strip-types", a stack about ".ts").
// Keep it plain JavaScript an old Node parses (nothing newer than Node 12's syntax) and free of
// imports of the project's own code, which an old Node may not load.

/**
 * The oldest Node.js that runs the project (package.json's `engines.node`): it strips TypeScript
 * types by default and has `import.meta.main`, and the SQLite driver's prebuilt binary loads on it
 * (on 22.12 it crashes with a segmentation fault).
 */
export const NODE_NEEDED = '22.18';

/**
 * The one line to print when `version` (e.g. "v20.20.2") is older than NODE_NEEDED, or
 * undefined when it is recent enough.
 */
export function nodeVersionProblem(version) {
  const found = /^v?(\d+)\.(\d+)/.exec(String(version));
  const needed = NODE_NEEDED.split('.').map(Number);
  if (found) {
    const major = Number(found[1]);
    const minor = Number(found[2]);
    if (major > needed[0] || (major === needed[0] && minor >= needed[1])) return undefined;
  }
  return `Society Studio needs Node.js ${NODE_NEEDED} or newer (this is ${version}): install Node 24 from https://nodejs.org, or run \`nvm install 24\``;
}

// SOCIETY_NODE_VERSION stands in for the running version, so tests can check the guard itself.
const problem = nodeVersionProblem(process.env.SOCIETY_NODE_VERSION || process.version);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
