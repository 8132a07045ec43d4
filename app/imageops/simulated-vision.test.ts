import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SimulatedProvider } from '../providers/simulated.ts';
import type { ChatRequest } from '../providers/types.ts';
import { imageFacts } from './simulated-vision.ts';

/** A picture of a `fill` circle on a `ground` square, as a PNG data URL. */
async function circle(fill: string, ground: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="80" height="60"><rect width="80" height="60" fill="${ground}"/><circle cx="40" cy="30" r="22" fill="${fill}"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

const look = (url: string, text = 'Describe this image in detail.'): ChatRequest => ({
  model: 'vlm',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text },
        { type: 'image', url },
      ],
    },
  ],
});
const call = () => ({ signal: AbortSignal.timeout(10_000) });

describe('a simulated vision model', () => {
  it('says what it measured of the picture, labelled, and nothing made up about it', async () => {
    const provider = new SimulatedProvider({ see: imageFacts });
    const red = await provider.chat(look(await circle('#d22', '#9cf')), call());
    expect(red.text).toBe(
      '[simulated] Measured from the picture: mostly red, the background aside; 80×60 pixels.',
    );
    const green = await provider.chat(look(await circle('#2a2', 'white'), 'What colour?'), call());
    expect(green.text).toMatch(/^\[simulated\] Measured from the picture: mostly green/);
  });

  it('still picks an option when asked for a letter, by what the prompt says', async () => {
    const result = await new SimulatedProvider({ see: imageFacts }).chat(
      look(
        await circle('#d22', '#9cf'),
        'Notes: it is red. Which? (a) a blue square (b) a red circle. Answer with its letter.',
      ),
      call(),
    );
    expect(result.text).toBe('[simulated] (b)');
  });
});
