import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { type OutputFile, outputFile } from '../model/outputFiles.ts';
import { notify, useEditor } from '../store.ts';
import { isActive } from './controller.ts';

/** A value as the panel prints it: text as is, anything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** Hands the browser a file to save. */
function saveFile(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The bytes of a blob the run holds, from the backend (the outputs here, thumbnails on cards). */
export async function fetchBlob(runId: string, hash: string): Promise<Blob> {
  const { mime, base64 } = await api().call('run.blob', { runId, hash });
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Blob([bytes], { type: mime });
}

async function download(runId: string | null, file: OutputFile): Promise<void> {
  if (file.kind === 'text') {
    saveFile(file.fileName, new Blob([file.text], { type: file.mime }));
    return;
  }
  if (!runId) return;
  try {
    saveFile(file.fileName, await fetchBlob(runId, file.hash));
  } catch (error) {
    notify('error', `${file.fileName} was not downloaded: ${(error as Error).message}`);
  }
}

/** An image or a sound the run produced, shown in place (fetched once). */
function Preview({ runId, file }: { runId: string; file: OutputFile & { kind: 'blob' } }) {
  const [url, setUrl] = useState<string | null>(null);
  const media = file.mime.startsWith('image/') || file.mime.startsWith('audio/');
  useEffect(() => {
    if (!media) return;
    let current = true;
    let made: string | null = null;
    fetchBlob(runId, file.hash)
      .then((blob) => {
        if (!current) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => {});
    return () => {
      current = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [runId, file.hash, media]);
  if (!url) return null;
  return file.mime.startsWith('image/') ? (
    <img className="output-image" src={url} alt={file.fileName} />
  ) : (
    // biome-ignore lint/a11y/useMediaCaption: a model's sound has no captions to offer
    <audio controls src={url} />
  );
}

/** What the run produced, by output name (once it has finished), each one downloadable. */
export function Outputs() {
  const outputs = useEditor((s) => s.run.outputs);
  const status = useEditor((s) => s.run.status);
  const runId = useEditor((s) => s.run.runId);
  if (!outputs) {
    return (
      <p className="muted">
        {isActive(status) ? 'The outputs appear when the run finishes.' : 'No outputs yet.'}
      </p>
    );
  }
  const entries = Object.entries(outputs);
  if (entries.length === 0) return <p className="muted">The run produced no outputs.</p>;
  return (
    <dl className="outputs" data-testid="outputs">
      {entries.map(([name, value]) => {
        const file = outputFile(name, value);
        return (
          <div key={name} data-testid={`output-${name}`}>
            <dt>
              {name}{' '}
              <button
                type="button"
                className="link small"
                data-testid={`output-download-${name}`}
                title={`Save as ${file.fileName}`}
                onClick={() => void download(runId, file)}
              >
                download {file.fileName}
              </button>
            </dt>
            <dd>
              {file.kind === 'blob' && runId ? <Preview runId={runId} file={file} /> : null}
              <pre>{show(value)}</pre>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
