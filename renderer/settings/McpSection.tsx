import { type FormEvent, Fragment, useEffect, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { splitCommandLine } from '../../app/tools/command-line.ts';
import { api } from '../api.ts';
import { McpToolPolicies } from './McpTools.tsx';
import { SettingsList, useSettingsChange } from './SettingsList.tsx';

type McpList = ApiResult<'settings.mcp.list'>;

/**
 * MCP servers whose tools agents may use (the same profiles as `society mcp`): listed, each with
 * the policy of its tools; HTTP ones added by URL with a header read from an environment
 * variable, never its value. A server that runs a program is added here only in the desktop app
 * (the API says whether this host can: `programs`), which shows the exact command line in a
 * dialog of its own first; in the studio, from a terminal (`society mcp --add NAME --command …`).
 */
export function McpSection() {
  const [list, setList] = useState<McpList | null>(null);
  const [kind, setKind] = useState<'http' | 'program'>('http');
  const [name, setName] = useState('');
  const [where, setWhere] = useState('');
  const [pairName, setPairName] = useState('');
  const [variable, setVariable] = useState('');
  const { busy, error, setError, run } = useSettingsChange();
  useEffect(() => {
    api()
      .call('settings.mcp.list', {})
      .then(setList)
      .catch((e: Error) => setError(e.message));
  }, [setError]);

  const program = kind === 'program' && list?.programs === true;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const pairs = pairName.trim() ? [{ name: pairName.trim(), env: variable.trim() }] : [];
    let save: () => Promise<McpList>;
    if (program) {
      let words: string[];
      try {
        words = splitCommandLine(where);
      } catch (failure) {
        setError(`command line: ${(failure as Error).message}`);
        return;
      }
      const [command, ...args] = words;
      save = () =>
        api().call('settings.mcp.saveProgram', {
          name: name.trim(),
          command: command!,
          args,
          env: pairs,
        });
    } else {
      save = () =>
        api().call('settings.mcp.save', { name: name.trim(), url: where.trim(), headers: pairs });
    }
    if (await run(save, setList)) {
      setName('');
      setWhere('');
      setPairName('');
      setVariable('');
    }
  };

  return (
    <SettingsList
      id="settings-mcp"
      testId="settings-mcp"
      title="MCP servers"
      intro={
        <>
          Servers whose tools a document's agents may use, by name (
          <code>{'{ "mcp": "NAME" }'}</code>). A header's or variable's value is read from the
          variable you name when a run connects, never kept here. A tool runs when called (allow),
          waits for you (ask: the default of tools that say they are destructive) or is never
          offered (deny).{' '}
          {list?.programs ? (
            'A server that runs a program is added after you confirm its command line.'
          ) : (
            <>
              A server that runs a program is added from a terminal or the desktop app:{' '}
              <code>society mcp --add NAME --command "CMD ARGS"</code>.
            </>
          )}
        </>
      }
      items={list?.profiles ?? null}
      empty={{ text: 'No MCP server yet.', testId: 'mcp-none' }}
      listTestId="mcp-list"
      row={(p) => (
        <Fragment key={p.name}>
          <tr data-testid={`mcp-${p.name}`}>
            <td>{p.name}</td>
            <td className="code settings-url" title={p.where}>
              {p.transport === 'stdio' ? `runs ${p.where}` : p.where}
            </td>
            <td className="muted small">
              {p.reads.map((r) => `${r.name} from ${r.env}${r.set ? '' : ' (not set)'}`).join(', ')}
            </td>
            <td>
              <span className="row settings-actions">
                <button
                  type="button"
                  className="danger"
                  disabled={busy}
                  data-testid={`mcp-remove-${p.name}`}
                  onClick={() =>
                    void run(() => api().call('settings.mcp.remove', { name: p.name }), setList)
                  }
                >
                  Remove
                </button>
              </span>
            </td>
          </tr>
          <tr className="mcp-policy-row">
            <td colSpan={4}>
              <McpToolPolicies profile={p} onProfiles={setList} />
            </td>
          </tr>
        </Fragment>
      )}
      form={{
        testId: 'mcp-form',
        onSubmit: (e) => void submit(e),
        before: list?.programs ? (
          <fieldset className="row mcp-kind">
            <legend className="small">It is reached</legend>
            <label>
              <input
                type="radio"
                name="mcp-kind"
                data-testid="mcp-kind-http"
                checked={kind === 'http'}
                onChange={() => setKind('http')}
              />
              at a URL
            </label>
            <label>
              <input
                type="radio"
                name="mcp-kind"
                data-testid="mcp-kind-program"
                checked={kind === 'program'}
                onChange={() => setKind('program')}
              />
              by running a program
            </label>
          </fieldset>
        ) : null,
        fields: [
          {
            label: 'Name',
            testId: 'mcp-name',
            placeholder: 'tools',
            value: name,
            onChange: setName,
          },
          program
            ? {
                label: 'Command line (quoted as in a shell; nothing is expanded)',
                testId: 'mcp-command',
                placeholder: 'npx -y @modelcontextprotocol/server-everything stdio',
                spellCheck: false,
                value: where,
                onChange: setWhere,
              }
            : {
                label: 'URL',
                testId: 'mcp-url',
                placeholder: 'http://127.0.0.1:3001/mcp',
                value: where,
                onChange: setWhere,
              },
          {
            label: program ? 'Its variable (optional)' : 'Header (optional)',
            testId: program ? 'mcp-env-name' : 'mcp-header',
            placeholder: program ? 'API_KEY' : 'Authorization',
            value: pairName,
            onChange: setPairName,
          },
          {
            label: 'Its value from the variable',
            testId: program ? 'mcp-env-var' : 'mcp-header-env',
            placeholder: 'MY_SERVER_AUTH',
            value: variable,
            onChange: setVariable,
          },
        ],
        submit: { label: 'Add', testId: 'mcp-add' },
      }}
      busy={busy}
      error={error}
      errorTestId="mcp-error"
    />
  );
}
