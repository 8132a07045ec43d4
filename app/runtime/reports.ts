/**
 * A node's reports (`NodeContext.report`): the core knows no kind of report, only that each is
 * declared by the reporting node's spec with a schema its data must fit. What does not fit
 * fails the node in one line naming the kind and the field, so a node type's run view only
 * ever reads data its own schema gave.
 */
import type { NodeSpec } from '../node-sdk/define.ts';

/** The data of a report of `kind` as `spec` declares it, parsed; throws a one-line reason. */
export function parseReport(spec: Pick<NodeSpec, 'reports'>, kind: string, data: unknown): unknown {
  const schema = spec.reports && Object.hasOwn(spec.reports, kind) ? spec.reports[kind] : undefined;
  if (!schema) {
    const declared = Object.keys(spec.reports ?? {});
    throw new Error(
      `it reported "${kind}", which its spec does not declare (${declared.length ? `reports: ${declared.join(', ')}` : 'it declares no reports'})`,
    );
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length ? issue.path.map(String).join('.') : 'its data';
    const what =
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
        : issue.message;
    throw new Error(`its "${kind}" report does not fit its spec: ${where}: ${what}`);
  }
  return result.data;
}
