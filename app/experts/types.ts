/**
 * The contract of expert calls (tasks, requests, results, the provider interface). It lives with
 * the chat contract in app/providers/expert-types.ts, since cassettes and run records keep both
 * kinds of call; re-exported here for the engine and node code that import it from this path.
 */
export * from '../providers/expert-types.ts';
