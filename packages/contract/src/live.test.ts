import { describe, expect, it } from 'vitest';
import { sseParser, type SseFrame } from './live.ts';

describe('sseParser', () => {
  it('reads frames split across chunks, skips comments, keeps ids', () => {
    const got: SseFrame[] = [];
    const feed = sseParser((f) => got.push(f));
    feed('retry: 2000\n: connected\n\nid: a-1\nda');
    feed('ta: {"kind":"balance"}\n\n: ping\n\nid: a-2\r\ndata: x\r\ndata: y\r\n\r\n');
    expect(got).toEqual([
      { id: 'a-1', data: '{"kind":"balance"}' },
      { id: 'a-2', data: 'x\ny' },
    ]);
  });
  it('keeps a frame whose data comes without a space after the colon, and one without an id', () => {
    const got: SseFrame[] = [];
    const feed = sseParser((f) => got.push(f));
    feed('data:{"a":1}\n\ndata: 2\n');
    expect(got).toEqual([{ id: undefined, data: '{"a":1}' }]);
    feed('\n');
    expect(got).toEqual([
      { id: undefined, data: '{"a":1}' },
      { id: undefined, data: '2' },
    ]);
  });
});
