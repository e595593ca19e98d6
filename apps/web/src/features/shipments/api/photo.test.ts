import { describe, expect, it } from 'vitest';
import { POD_LIMITS } from '@shiptrail/contract';
import { scaledSize } from './photo';

describe('delivery photo size', () => {
  it('keeps the longest side within what the server stores, in proportion', () => {
    expect(scaledSize(4032, 3024)).toEqual({ width: POD_LIMITS.photoMaxSide, height: 960 });
    expect(scaledSize(3000, 4000)).toEqual({ width: 960, height: POD_LIMITS.photoMaxSide });
  });
  it('never enlarges a small photo', () => {
    expect(scaledSize(640, 480)).toEqual({ width: 640, height: 480 });
  });
});
