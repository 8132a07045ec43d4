import { useMemo } from 'react';
import { isFileModality } from '../../app/node-sdk/example.ts';
import { IMAGE_MIMES } from '../../app/schema/mime.ts';
import type { Modality } from '../../app/schema/modality.ts';
import {
  EXAMPLE_VALUE,
  fieldValue,
  type RunInputField,
  runInputFields,
} from '../model/run-inputs.ts';
import { documentNodes, useEditor } from '../store.ts';
import { useDebug } from './debugState.ts';
import { ParamsFields } from './ParamsFields.tsx';

/**
 * The run's inputs: the document's template parameters (ParamsFields), a value for each input
 * node, an answer for each person asked. An input
 * whose document carries an example starts with it filled in (a template's is what its
 * cassette was recorded with, so Run replays it as it comes).
 */
export function InputsForm() {
  const nodes = useEditor((s) => documentNodes(s));
  const inputs = useMemo(() => runInputFields(nodes), [nodes]);
  const values = useEditor((s) => s.inputValues);
  const problems = useDebug((s) => s.inputProblems);
  const setValue = (name: string, value: string) => {
    useEditor.setState((s) => ({ inputValues: { ...s.inputValues, [name]: value } }));
    // A field being filled in no longer shows why the last Run was refused.
    if (problems[name] !== undefined) {
      const { [name]: _, ...rest } = problems;
      useDebug.setState({ inputProblems: rest });
    }
  };
  if (inputs.length === 0) {
    return (
      <>
        <ParamsFields />
        <p className="muted">This society takes no inputs. Add an Input node to ask for one.</p>
      </>
    );
  }
  return (
    <form className="inputs-form" data-testid="inputs-form" onSubmit={(e) => e.preventDefault()}>
      <ParamsFields />
      {inputs.map((input) => {
        const value = fieldValue(input, values);
        const id = `run-input-${input.name}`;
        const preview = value === EXAMPLE_VALUE ? input.example : value;
        const problem = problems[input.name];
        const invalid = problem
          ? { 'aria-invalid': true, 'aria-describedby': `${id}-problem` }
          : undefined;
        return (
          <div key={`${input.id}:${input.name}`} className="field">
            <label htmlFor={id}>
              {input.name}{' '}
              <span className="field-hint">
                {input.human ? `answer for ${input.id} (else the run waits)` : input.modality}
              </span>
              {input.hasDefault ? <span className="field-hint">has a default</span> : null}
              {input.example !== undefined && value === exampleText(input) ? (
                <span className="field-hint" data-testid={`input-${input.name}-is-example`}>
                  the example
                </span>
              ) : null}
            </label>
            {input.description ? <p className="muted small">{input.description}</p> : null}
            {input.modality === 'image' ? (
              <div className="row">
                {input.example !== undefined ? (
                  <label className="inline">
                    <input
                      type="checkbox"
                      data-testid={`input-${input.name}-example`}
                      checked={value === EXAMPLE_VALUE}
                      onChange={(e) => setValue(input.name, e.target.checked ? EXAMPLE_VALUE : '')}
                    />
                    use the example image (from the document)
                  </label>
                ) : null}
                <input
                  id={id}
                  type="file"
                  accept={IMAGE_MIMES.join(',')}
                  data-testid={`input-${input.name}`}
                  {...invalid}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (!file) return;
                    const reader = new FileReader();
                    reader.addEventListener('load', () => {
                      if (typeof reader.result === 'string') setValue(input.name, reader.result);
                    });
                    reader.readAsDataURL(file);
                  }}
                />
                {preview ? (
                  <img className="input-preview" src={preview} alt={`${input.name} preview`} />
                ) : null}
              </div>
            ) : (
              <textarea
                id={id}
                rows={2}
                data-testid={`input-${input.name}`}
                {...invalid}
                value={value}
                placeholder={input.modality === 'text' ? '' : `${input.modality} (JSON)`}
                onChange={(e) => setValue(input.name, e.target.value)}
              />
            )}
            {problem ? (
              <p
                id={`${id}-problem`}
                className="field-problem"
                role="alert"
                data-testid={`input-${input.name}-problem`}
              >
                {problem}
              </p>
            ) : null}
          </div>
        );
      })}
    </form>
  );
}

/** How the field reads when it holds the document's example. */
function exampleText(input: RunInputField): string | undefined {
  return isFileModality(input.modality as Modality) ? EXAMPLE_VALUE : input.example;
}
