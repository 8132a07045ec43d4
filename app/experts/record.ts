/**
 * Expert calls as cassettes and run records keep them: app/providers/expert-record.ts, beside the
 * cassette that stores them; re-exported here for the code that imports it from this path.
 */
export * from '../providers/expert-record.ts';
