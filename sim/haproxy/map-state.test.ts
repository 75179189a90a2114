import { describe, expect, it } from 'vitest';
import { PointerSource } from './map-state.ts';

describe('PointerSource', () => {
  it('hands out 0x55d0c0a00000 and every 0x40 bytes after it, in 12 hex digits', () => {
    const p = new PointerSource();
    // Past two carries of the low 16 bits (1024 pointers each), so the high digits move too.
    for (let n = 0; n < 2600; n++) expect(p.next()).toBe(`0x${(0x55d0c0a00000 + n * 0x40).toString(16)}`);
  });
});
