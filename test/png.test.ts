import { fc, test as fcTest } from '@fast-check/vitest';
import { deflateSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { decodePng, inkIn, paeth } from './png.ts';

/** A PNG written the way the spec describes (ISO/IEC 15948 §9: each row filtered by its own filter type). */
function encode(width: number, height: number, channels: 3 | 4, pixels: Uint8Array, filters: number[]): Buffer {
  const stride = width * channels;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const f = filters[y % filters.length]!;
    raw[y * (stride + 1)] = f;
    for (let x = 0; x < stride; x++) {
      const at = (yy: number, xx: number) => (yy < 0 || xx < 0 ? 0 : pixels[yy * stride + xx]!);
      const [v, a, b, c] = [at(y, x), at(y, x - channels), at(y - 1, x), at(y - 1, x - channels)];
      const pred = [0, a, b, (a + b) >> 1, paeth(a, b, c)][f]!;
      raw[y * (stride + 1) + 1 + x] = (v - pred) & 255;
    }
  }
  const chunk = (type: string, body: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), body, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = channels === 4 ? 6 : 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

fcTest.prop([fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom(3 as const, 4 as const), fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }), fc.integer()])(
  'decodes what the spec encodes, every filter type, RGB and RGBA',
  (width, height, channels, filters, seed) => {
    const pixels = new Uint8Array(width * height * channels).map((_, i) => (Math.imul(seed ^ i, 2654435761) >>> 24) & 255);
    const img = decodePng(encode(width, height, channels, pixels, filters));
    expect([img.width, img.height]).toEqual([width, height]);
    for (let p = 0; p < width * height; p++) {
      for (let k = 0; k < channels; k++) expect(img.data[p * 4 + k]).toBe(pixels[p * channels + k]);
      if (channels === 3) expect(img.data[p * 4 + 3]).toBe(255);
    }
  },
);

test('ink: the share of non-white pixels in a box, clipped to the image', () => {
  // 4 × 2 white RGB image with one black pixel at (1, 0).
  const pixels = new Uint8Array(4 * 2 * 3).fill(255);
  pixels.set([0, 0, 0], 3);
  const img = decodePng(encode(4, 2, 3, pixels, [0]));
  expect(inkIn(img, { x: 0, y: 0, width: 4, height: 2 })).toBe(1 / 8);
  expect(inkIn(img, { x: 2, y: 0, width: 10, height: 10 })).toBe(0);
  expect(() => decodePng(Buffer.from('GIF89a'))).toThrow('not a PNG');
});
