import { useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';

type Profile = ApiResult<'settings.mcp.list'>['profiles'][number];
type Tool = ApiResult<'settings.mcp.tools'>['tools'][number];
type Policy = 'allow' | 'ask' | 'deny';
type Choice = Policy | 'default';

/** What a tool runs under with no setting of its own: the server's, else its default. */
function inherited(profile: Profile, tool: Tool): Policy {
  return profile.policy ?? (tool.destructive ? 'ask' : 'allow');
}

/** The policy choices of a select: the default named with what it comes to, then the three. */
function PolicySelect(props: {
  value: Choice;
  defaultLabel: string;
  testId: string;
  label: string;
  disabled: boolean;
  onChange: (choice: Choice) => void;
}) {
  return (
    <select
      aria-label={props.label}
      data-testid={props.testId}
      value={props.value}
      disabled={props.disabled}
      onChange={(e) => props.onChange(e.target.value as Choice)}
    >
      <option value="default">{props.defaultLabel}</option>
      <option value="allow">allow</option>
      <option value="ask">ask first</option>
      <option value="deny">deny</option>
    </select>
  );
}

/**
 * The policy of one server's tools (`society mcp --policy NAME[/TOOL]=…`): one for all its tools,
 * and, once its tools are listed (`society mcp tools NAME`: the server is connected to, or its
 * program started), one per tool. A tool that says it is destructive asks by default.
 */
export function McpToolPolicies(props: {
  profile: Profile;
  onProfiles: (list: ApiResult<'settings.mcp.list'>) => void;
}) {
  const { profile } = props;
  const [tools, setTools] = useState<Tool[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const setPolicy = (tool: string | undefined, policy: Choice) =>
    attempt(async () => {
      props.onProfiles(
        await api().call('settings.mcp.policy', {
          name: profile.name,
          ...(tool ? { tool } : {}),
          policy,
        }),
      );
    });
  const list = () =>
    attempt(async () =>
      setTools((await api().call('settings.mcp.tools', { name: profile.name })).tools),
    );

  const id = profile.name;
  return (
    <div className="mcp-policies" data-testid={`mcp-policies-${id}`}>
      <div className="row">
        <span className="small">Its tools:</span>
        <PolicySelect
          label={`Policy of every tool of ${id}`}
          testId={`mcp-policy-${id}`}
          value={profile.policy ?? 'default'}
          defaultLabel="allow (destructive ones ask)"
          disabled={busy}
          onChange={(choice) => void setPolicy(undefined, choice)}
        />
        <button
          type="button"
          disabled={busy}
          data-testid={`mcp-list-tools-${id}`}
          onClick={() => void list()}
        >
          {tools ? 'List again' : 'List its tools'}
        </button>
      </div>
      {error ? (
        <p className="errors" role="alert" data-testid={`mcp-tools-error-${id}`}>
          {error}
        </p>
      ) : null}
      {tools?.length === 0 ? <p className="muted small">It offers no tool.</p> : null}
      {tools?.length ? (
        <table className="settings-table" data-testid={`mcp-tools-${id}`}>
          <tbody>
            {tools.map((tool) => {
              const setting = profile.tools?.[tool.name];
              return (
                <tr key={tool.name} data-testid={`mcp-tool-${id}-${tool.name}`}>
                  <td className="code">{tool.name}</td>
                  <td className="muted small">
                    {tool.destructive ? (
                      <span className="mcp-destructive">destructive </span>
                    ) : null}
                    {tool.description}
                  </td>
                  <td>
                    <PolicySelect
                      label={`Policy of ${tool.name}`}
                      testId={`mcp-tool-policy-${id}-${tool.name}`}
                      value={setting ?? 'default'}
                      defaultLabel={`${inherited(profile, tool)} (default)`}
                      disabled={busy}
                      onChange={(choice) => void setPolicy(tool.name, choice)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
