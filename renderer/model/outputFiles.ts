/**
 * Run outputs as files to download: text as .txt, JSON values as .json, and bytes an output
 * points to (an image, audio, a 3D asset) under an extension for their type.
 */

/**
 * The content hash of a binary reference (`{ $image, mime }` or `{ $blob, mime }`, as
 * app/node-sdk/template.ts defines them; not imported, it brings the template engine along).
 */
function blobHashOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { $image?: unknown; $blob?: unknown; mime?: unknown };
  if (typeof v.mime !== 'string') return undefined;
  if (typeof v.$image === 'string') return v.$image;
  return typeof v.$blob === 'string' ? v.$blob : undefined;
}

const EXTENSION_BY_MIME: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/flac': 'flac',
  'audio/ogg': 'ogg',
  'model/gltf-binary': 'glb',
  'model/gltf+json': 'gltf',
  'model/obj': 'obj',
  'model/stl': 'stl',
  'application/octet-stream': 'bin',
};

/** How one output is downloaded. */
export type OutputFile =
  | { kind: 'text'; fileName: string; text: string; mime: 'text/plain' | 'application/json' }
  | { kind: 'blob'; fileName: string; hash: string; mime: string };

/** A file name's stem from an output name: letters, digits, dots, dashes and underscores. */
function stem(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'output';
}

export function extensionFor(mime: string): string {
  return (
    EXTENSION_BY_MIME[mime.toLowerCase()] ?? mime.split('/')[1]?.replace(/[^a-z0-9]/g, '') ?? 'bin'
  );
}

export function outputFile(name: string, value: unknown): OutputFile {
  const hash = blobHashOf(value);
  if (hash !== undefined) {
    const mime = (value as { mime: string }).mime;
    return { kind: 'blob', fileName: `${stem(name)}.${extensionFor(mime)}`, hash, mime };
  }
  if (typeof value === 'string')
    return { kind: 'text', fileName: `${stem(name)}.txt`, text: value, mime: 'text/plain' };
  return {
    kind: 'text',
    fileName: `${stem(name)}.json`,
    text: `${JSON.stringify(value, null, 2)}\n`,
    mime: 'application/json',
  };
}
