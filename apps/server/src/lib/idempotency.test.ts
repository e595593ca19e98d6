// What makes two requests "the same request" under one Idempotency-Key: the canonical hash.
import { describe, expect, it } from 'vitest';
import { requestHash } from './idempotency.ts';

describe('requestHash', () => {
  it('is the same for the same request whatever the order of its keys, at every depth', () => {
    const a = requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana', at: '10:00' }, list: [{ x: 1, y: 2 }] });
    const b = requestHash({ list: [{ y: 2, x: 1 }], proof: { at: '10:00', name: 'Ana' }, status: 'Delivered', tid: 'SHM1' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves out properties that are undefined, as JSON does', () => {
    expect(requestHash({ tid: 'SHM1', note: undefined })).toBe(requestHash({ tid: 'SHM1' }));
  });

  it('differs when a value, a nested value, the order of a list or null against absent differs', () => {
    const base = requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2] });
    expect(requestHash({ tid: 'SHM2', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Bo' }, list: [1, 2] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [2, 1] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2], note: null })).not.toBe(base);
    expect(requestHash({ a: '1' })).not.toBe(requestHash({ a: 1 }));
    expect(requestHash({ 'a,b': 1 })).not.toBe(requestHash({ a: 1, b: 1 }));
  });
});
