/**
 * 3D without a 3D model: a labelled stand-in mesh for text-to-3D (no hosted service serves a
 * text-to-3D model today) and a small renderer that draws a mesh from named sides, so a society
 * that designs, renders and captions 3D objects (NLSOM, Zhuge et al., App. H) runs end to end.
 *
 * The stand-in is an OBJ mesh, a simple solid whose shape and colour follow the prompt's words,
 * with the words "stand-in" in its header comments. The renderer is real but plain: an
 * orthographic, flat-shaded drawing of the mesh's faces (painter's order, one light, no
 * textures), written as SVG and rasterized by sharp. It reads OBJ files only (vertices, optional
 * vertex colours, faces); GLB and other formats are refused with a line saying so.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { loadSharp } from '../imageops/sharp.ts';
import type { BinaryValue } from '../providers/expert-types.ts';

export const OBJ_MIME = 'model/obj';

/** The words a stand-in asset's header carries, which the renderer passes on. */
export const STAND_IN_MARK = 'stand-in';

/** Colours a prompt may name, as RGB in [0, 1]. */
const COLOURS: Record<string, [number, number, number]> = {
  red: [0.8, 0.1, 0.1],
  orange: [0.95, 0.5, 0.1],
  yellow: [0.95, 0.85, 0.15],
  gold: [0.85, 0.65, 0.15],
  green: [0.15, 0.6, 0.2],
  blue: [0.15, 0.3, 0.85],
  purple: [0.5, 0.2, 0.7],
  pink: [0.95, 0.5, 0.7],
  white: [0.92, 0.92, 0.92],
  silver: [0.75, 0.75, 0.78],
  grey: [0.5, 0.5, 0.5],
  gray: [0.5, 0.5, 0.5],
  black: [0.12, 0.12, 0.12],
  brown: [0.45, 0.3, 0.15],
};

type Vec = [number, number, number];

export interface Mesh {
  vertices: Vec[];
  /** Per-vertex colour when the file gives one (`v x y z r g b`). */
  colours: Array<Vec | undefined>;
  /** Triangles as vertex indices (polygons are split into fans). */
  faces: Array<[number, number, number]>;
  /** The file's `#` comment lines, without the `#`. */
  comments: string[];
}

/** Vertices of a box, pyramid, octahedron or prism, and their faces (counter-clockwise). */
function solid(kind: number, [w, h, d]: Vec): { v: Vec[]; f: number[][] } {
  if (kind === 0) {
    const v: Vec[] = [];
    for (const x of [-w, w]) for (const y of [-h, h]) for (const z of [-d, d]) v.push([x, y, z]);
    // Index bits: x·4 + y·2 + z.
    const f = [
      [0, 1, 3, 2],
      [4, 6, 7, 5],
      [0, 4, 5, 1],
      [2, 3, 7, 6],
      [0, 2, 6, 4],
      [1, 5, 7, 3],
    ];
    return { v, f };
  }
  if (kind === 1) {
    const v: Vec[] = [
      [-w, -h, -d],
      [w, -h, -d],
      [w, -h, d],
      [-w, -h, d],
      [0, h, 0],
    ];
    return {
      v,
      f: [
        [0, 1, 2, 3],
        [0, 4, 1],
        [1, 4, 2],
        [2, 4, 3],
        [3, 4, 0],
      ],
    };
  }
  if (kind === 2) {
    const v: Vec[] = [
      [w, 0, 0],
      [-w, 0, 0],
      [0, h, 0],
      [0, -h, 0],
      [0, 0, d],
      [0, 0, -d],
    ];
    return {
      v,
      f: [
        [0, 2, 4],
        [4, 2, 1],
        [1, 2, 5],
        [5, 2, 0],
        [4, 3, 0],
        [1, 3, 4],
        [5, 3, 1],
        [0, 3, 5],
      ],
    };
  }
  // A hexagonal prism standing on its base.
  const v: Vec[] = [];
  for (const y of [-h, h]) {
    for (let i = 0; i < 6; i++) {
      const a = (i * Math.PI) / 3;
      v.push([w * Math.cos(a), y, d * Math.sin(a)]);
    }
  }
  const f: number[][] = [
    [5, 4, 3, 2, 1, 0],
    [6, 7, 8, 9, 10, 11],
  ];
  for (let i = 0; i < 6; i++) {
    const j = (i + 1) % 6;
    f.push([i, j, j + 6, i + 6]);
  }
  return { v, f };
}

const round = (n: number) => Number(n.toFixed(4));

/**
 * A stand-in for a text-to-3D model's answer: an OBJ solid whose shape and proportions come
 * from the prompt's hash and whose colour is the first colour word it names (else a hashed
 * one). Its header says it is a stand-in and which prompt it stands for; `label` leads that
 * header (the simulated label under --simulate).
 */
export function standInMesh(prompt: string, label = ''): BinaryValue {
  const hash = createHash('sha256').update(prompt).digest();
  const size = (i: number) => 0.5 + (hash[i]! / 255) * 0.7;
  const kind = hash[0]! % 4;
  const named = prompt
    .toLowerCase()
    .split(/[^a-z]+/)
    .find((word) => word in COLOURS);
  const colour: Vec = named ? COLOURS[named]! : [hash[4]! / 255, hash[5]! / 255, hash[6]! / 255];
  const { v, f } = solid(kind, [size(1), size(2), size(3)]);
  const shown = prompt.replace(/\s+/g, ' ').trim().slice(0, 200);
  const lines = [
    `# ${label ? `${label} ` : ''}${STAND_IN_MARK} mesh: no text-to-3D model ran; ${['a box', 'a pyramid', 'an octahedron', 'a prism'][kind]} standing in`,
    `# prompt: ${shown}`,
    ...v.map((p) => `v ${p.map(round).join(' ')} ${colour.map(round).join(' ')}`),
    ...f.map((face) => `f ${face.map((i) => i + 1).join(' ')}`),
  ];
  return { bytes: new TextEncoder().encode(`${lines.join('\n')}\n`), mime: OBJ_MIME };
}

/** Reads an OBJ file's vertices (with optional colours), faces and comments. */
export function parseObj(text: string): Mesh {
  const mesh: Mesh = { vertices: [], colours: [], faces: [], comments: [] };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#')) {
      mesh.comments.push(line.slice(1).trim());
      continue;
    }
    const [kind, ...rest] = line.split(/\s+/);
    if (kind === 'v') {
      const n = rest.map(Number);
      if (n.length < 3 || n.slice(0, 3).some((x) => !Number.isFinite(x))) {
        throw new Error(`the OBJ file has a vertex that is not three numbers: "${line}"`);
      }
      mesh.vertices.push([n[0]!, n[1]!, n[2]!]);
      mesh.colours.push(
        n.length >= 6 && n.slice(3, 6).every(Number.isFinite) ? [n[3]!, n[4]!, n[5]!] : undefined,
      );
    } else if (kind === 'f') {
      const count = mesh.vertices.length;
      // `f 1/2/3 …`: the vertex index comes first; negative indices count from the end.
      const ids = rest.map((r) => {
        const i = Number.parseInt(r.split('/')[0] ?? '', 10);
        return i < 0 ? count + i : i - 1;
      });
      if (ids.some((i) => !Number.isInteger(i) || i < 0 || i >= count)) {
        throw new Error(`the OBJ file has a face naming a vertex it does not have: "${line}"`);
      }
      for (let k = 1; k + 1 < ids.length; k++) mesh.faces.push([ids[0]!, ids[k]!, ids[k + 1]!]);
    }
  }
  if (mesh.faces.length === 0) throw new Error('the OBJ file has no faces to draw');
  return mesh;
}

/** The azimuth (degrees around the vertical) and elevation of a named side or an angle. */
export function viewAngles(view: string): { azimuth: number; elevation: number } {
  const named: Record<string, number> = { front: 0, right: 90, back: 180, left: 270 };
  const key = view.trim().toLowerCase();
  if (key === 'top') return { azimuth: 0, elevation: 89 };
  if (Object.hasOwn(named, key)) return { azimuth: named[key]!, elevation: 20 };
  const degrees = Number.parseFloat(key);
  if (Number.isFinite(degrees)) return { azimuth: degrees, elevation: 20 };
  throw new Error(
    `unknown view "${view}": name a side (front, right, back, left, top) or an angle in degrees`,
  );
}

/** Is this asset a stand-in (its header says so)? */
export function isStandIn(mesh: Mesh): boolean {
  return mesh.comments.some((c) => c.includes(STAND_IN_MARK));
}

/** Reads an asset as an OBJ mesh, or says plainly which formats the renderer takes. */
export function meshOf(asset: BinaryValue): Mesh {
  const text = new TextDecoder().decode(asset.bytes);
  const binary = asset.bytes.subarray(0, 4);
  if (String.fromCharCode(...binary) === 'glTF' || asset.mime.includes('gltf')) {
    throw new Error(
      'the local renderer reads OBJ meshes only, not glTF; convert the asset to OBJ first',
    );
  }
  return parseObj(text);
}

const SIZE = 128;

/**
 * Draws a mesh from one side as a SIZE×SIZE PNG: orthographic, flat-shaded, fitted to the
 * mesh's bounding sphere (the same scale from every side). `note` goes into the PNG's text
 * metadata (a `Comment` chunk), so a picture of a stand-in says so wherever it is saved.
 */
export async function renderView(mesh: Mesh, view: string, note: string): Promise<BinaryValue> {
  const { azimuth, elevation } = viewAngles(view);
  const a = (azimuth * Math.PI) / 180;
  const e = (elevation * Math.PI) / 180;
  const centre: Vec = [0, 1, 2].map(
    (k) => mesh.vertices.reduce((s, v) => s + v[k]!, 0) / mesh.vertices.length,
  ) as Vec;
  const radius = Math.max(
    1e-9,
    ...mesh.vertices.map((v) => Math.hypot(v[0] - centre[0], v[1] - centre[1], v[2] - centre[2])),
  );
  // Turn the world so the camera, on +z looking at the centre, sees the requested side.
  const toCamera = (v: Vec): Vec => {
    const [x0, y0, z0] = [v[0] - centre[0], v[1] - centre[1], v[2] - centre[2]];
    const x1 = x0 * Math.cos(a) - z0 * Math.sin(a);
    const z1 = x0 * Math.sin(a) + z0 * Math.cos(a);
    const y2 = y0 * Math.cos(e) - z1 * Math.sin(e);
    const z2 = y0 * Math.sin(e) + z1 * Math.cos(e);
    return [x1 / radius, y2 / radius, z2 / radius];
  };
  const points = mesh.vertices.map(toCamera);
  const light = normalize([0.4, 0.7, 0.6]);
  const polygons = mesh.faces
    .map(([i, j, k]) => {
      const [p, q, r] = [points[i]!, points[j]!, points[k]!];
      // Windings differ between files, so every face is shaded as seen from the camera's side;
      // drawing far faces first lets the near ones cover them (painter's order).
      const raw = normalize(cross(sub(q, p), sub(r, p)));
      const n: Vec = raw[2] < 0 ? [-raw[0], -raw[1], -raw[2]] : raw;
      const colour = mesh.colours[i] ?? [0.6, 0.6, 0.6];
      return { p, q, r, n, colour, depth: (p[2] + q[2] + r[2]) / 3 };
    })
    .filter((f) => Math.abs(f.n[2]) > 1e-6)
    .sort((x, y) => x.depth - y.depth);
  const px = (v: Vec) =>
    `${round(SIZE / 2 + v[0] * SIZE * 0.45)},${round(SIZE / 2 - v[1] * SIZE * 0.45)}`;
  const shapes = polygons.map(({ p, q, r, n, colour }) => {
    const shade = 0.35 + 0.65 * Math.max(0, dot(n, light));
    const [cr, cg, cb] = colour.map((c) => Math.round(Math.min(1, Math.max(0, c)) * shade * 255));
    return `<polygon points="${px(p)} ${px(q)} ${px(r)}" fill="rgb(${cr},${cg},${cb})" stroke="rgb(${cr},${cg},${cb})" stroke-width="0.5"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"><rect width="100%" height="100%" fill="#eeeeee"/>${shapes.join('')}</svg>`;
  // Our own drawing at a fixed SIZE, not an image from a document or a model: no budget to check.
  const sharp = await loadSharp();
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { bytes: withComment(new Uint8Array(png), note), mime: 'image/png' };
}

/** A PNG with a `tEXt` chunk (`Comment`) inserted after its header chunk. */
export function withComment(png: Uint8Array, comment: string): Uint8Array {
  const latin1 = Buffer.from(`Comment\0${comment.replace(/[^\x20-\x7e]/g, '?')}`, 'latin1');
  const chunk = Buffer.alloc(12 + latin1.length);
  chunk.writeUInt32BE(latin1.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  latin1.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + latin1.length)), 8 + latin1.length);
  // The signature (8 bytes) and IHDR (4 + 4 + 13 + 4 bytes) come first in every PNG.
  const headerEnd = 8 + 25;
  return new Uint8Array(
    Buffer.concat([png.subarray(0, headerEnd), chunk, png.subarray(headerEnd)]),
  );
}

/** The text of a PNG's `Comment` chunk, if it has one. */
export function pngComment(png: Uint8Array): string | undefined {
  let at = 8;
  const buffer = Buffer.from(png);
  while (at + 8 <= buffer.length) {
    const length = buffer.readUInt32BE(at);
    const type = buffer.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const [key, value] = buffer.toString('latin1', at + 8, at + 8 + length).split('\0');
      if (key === 'Comment') return value;
    }
    at += 12 + length;
  }
  return undefined;
}

/**
 * Renders one view of a 3D asset, with the note that goes into the picture: what drew it, from
 * which side, and whether the asset was a stand-in.
 */
export async function renderAssetView(
  asset: BinaryValue,
  view: string,
  label = '',
): Promise<{ image: BinaryValue; standIn: boolean }> {
  const mesh = meshOf(asset);
  const standIn = isStandIn(mesh);
  const note = `${label ? `${label} ` : ''}${view} view drawn by the local flat-shaded renderer${
    standIn ? ` of a ${STAND_IN_MARK} mesh (no text-to-3D model ran)` : ''
  }`;
  return { image: await renderView(mesh, view, note), standIn };
}

function sub(a: Vec, b: Vec): Vec {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function cross(a: Vec, b: Vec): Vec {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function dot(a: Vec, b: Vec): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
function normalize(v: Vec): Vec {
  const n = Math.hypot(...v) || 1;
  return [v[0] / n, v[1] / n, v[2] / n];
}
