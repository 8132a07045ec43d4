import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { toEntities } from './huggingface/outputs.ts';
import {
  meshOf,
  parseObj,
  pngComment,
  renderAssetView,
  standInMesh,
  viewAngles,
} from './render-views.ts';
import { simulatedEntities } from './simulated-entities.ts';

const request = { task: 'token-classification' as const, model: 'm', inputs: {} };

describe('the stand-in mesh and the local renderer', () => {
  it('makes an OBJ solid in the colour the prompt names, labelled a stand-in', () => {
    const asset = standInMesh('a red sports car', '[simulated]');
    const text = new TextDecoder().decode(asset.bytes);
    expect(asset.mime).toBe('model/obj');
    expect(text.split('\n')[0]).toMatch(/^# \[simulated\] stand-in mesh: no text-to-3D model ran/);
    const mesh = parseObj(text);
    expect(mesh.faces.length).toBeGreaterThan(3);
    expect(mesh.colours[0]).toEqual([0.8, 0.1, 0.1]);
  });

  it('draws a 128×128 PNG per side that says it shows a stand-in, and differs by side', async () => {
    const asset = standInMesh('a blue tower');
    const back = await renderAssetView(asset, 'back');
    const left = await renderAssetView(asset, 'left');
    expect(back.standIn).toBe(true);
    expect(await sharp(back.image.bytes).metadata()).toMatchObject({ width: 128, height: 128 });
    expect(pngComment(back.image.bytes)).toMatch(/^back view .* stand-in mesh/);
    expect(Buffer.from(back.image.bytes).equals(Buffer.from(left.image.bytes))).toBe(false);
  });

  it('names sides or takes degrees, and refuses what it cannot draw in one line', () => {
    expect(viewAngles('right')).toEqual({ azimuth: 90, elevation: 20 });
    expect(viewAngles('45')).toEqual({ azimuth: 45, elevation: 20 });
    expect(() => viewAngles('under')).toThrow(/unknown view "under"/);
    const glb = { bytes: new TextEncoder().encode('glTF....'), mime: 'model/gltf-binary' };
    expect(() => meshOf(glb)).toThrow(/OBJ meshes only/);
    expect(() => parseObj('v 0 0 0\nf 1 2 3')).toThrow(/face naming a vertex it does not have/);
  });
});

describe('named entities', () => {
  it('reads grouped entities as hf-inference sends them with an aggregation strategy', () => {
    const value = [
      { entity_group: 'PER', score: 0.99, word: 'Marie Dubois', start: 10, end: 22 },
      { entity_group: 'LOC', score: 0.97, word: 'Lyon', start: 30, end: 34 },
    ];
    expect(toEntities(request, value)).toEqual([
      { word: 'Marie Dubois', type: 'PER', score: 0.99, start: 10, end: 22 },
      { word: 'Lyon', type: 'LOC', score: 0.97, start: 30, end: 34 },
    ]);
  });

  it('groups per-token IOB tags and word pieces into entities', () => {
    const value = [
      { entity: 'B-PER', score: 0.9, word: 'Marie', start: 0, end: 5 },
      { entity: 'I-PER', score: 0.7, word: 'Dub', start: 6, end: 9 },
      { entity: 'I-PER', score: 0.8, word: '##ois', start: 9, end: 12 },
      { entity: 'B-LOC', score: 0.95, word: 'Lyon', start: 16, end: 20 },
    ];
    const entities = toEntities(request, value);
    expect(entities.map((e) => [e.word, e.type, e.start, e.end])).toEqual([
      ['Marie Dubois', 'PER', 0, 12],
      ['Lyon', 'LOC', 16, 20],
    ]);
    expect(entities[0]!.score).toBeCloseTo(0.8, 10);
    expect(() => toEntities(request, [{ word: 'x' }])).toThrow(/entity_group or entity/);
  });

  it('simulates entities as the capitalized names of the text, labelled', () => {
    const found = simulatedEntities(
      'The mayor of Lyon met Marie Dubois at the Musée des Confluences.',
    );
    expect(found.map((e) => e.word)).toEqual(['Lyon', 'Marie Dubois', 'Musée des Confluences']);
    expect(found.every((e) => e.type === '[simulated] MISC')).toBe(true);
  });
});
