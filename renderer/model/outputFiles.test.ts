import { describe, expect, it } from 'vitest';
import { outputFile } from './outputFiles.ts';

describe('outputs as files', () => {
  it('names each kind of output for what it holds', () => {
    expect(outputFile('answer', 'a red circle')).toEqual({
      kind: 'text',
      fileName: 'answer.txt',
      text: 'a red circle',
      mime: 'text/plain',
    });
    expect(outputFile('tally', { winner: 'b' })).toMatchObject({
      fileName: 'tally.json',
      text: '{\n  "winner": "b"\n}\n',
    });
    expect(outputFile('restored image', { $image: 'ab12cd34', mime: 'image/png' })).toEqual({
      kind: 'blob',
      fileName: 'restored-image.png',
      hash: 'ab12cd34',
      mime: 'image/png',
    });
    expect(outputFile('speech', { $blob: 'ef56', mime: 'audio/wav' }).fileName).toBe('speech.wav');
    expect(outputFile('mesh', { $blob: 'ef57', mime: 'model/gltf-binary' }).fileName).toBe(
      'mesh.glb',
    );
  });
});
