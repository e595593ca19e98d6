import { describe, expect, it } from 'vitest';
import type { ShipmentView } from '@shiptrail/contract';
import { countsWithQueue } from './day-with-queue';

const stop = (tid: string) => ({ tid }) as ShipmentView;

describe("the courier's counts with what waits on the phone (decision 120)", () => {
  it('a delivery waiting to be sent is done, not to do; a failed attempt waiting is failed', () => {
    const day = { stops: [stop('A'), stop('B'), stop('C')], done: 2, failed: 1 };
    expect(countsWithQueue(day, [])).toEqual({ left: 3, done: 2, failed: 1 });
    expect(
      countsWithQueue(day, [
        { tid: 'A', status: 'OutForDelivery' },
        { tid: 'B', status: 'FailAttempt' },
        { tid: 'A', status: 'Delivered' },
      ]),
    ).toEqual({ left: 2, done: 3, failed: 2 });
  });
  it('a delivery the server already has (the stop left the list) is not counted twice', () => {
    expect(countsWithQueue({ stops: [stop('B')], done: 1, failed: 0 }, [{ tid: 'A', status: 'Delivered' }])).toEqual({
      left: 1,
      done: 1,
      failed: 0,
    });
  });
});
