import { describe, expect, it } from 'vitest';
import type { ShipmentView } from '@shiptrail/contract';
import { countsWithQueue, dayOrder } from './day-with-queue';

const stop = (tid: string) => ({ tid }) as ShipmentView;
const since = '2026-11-26T00:00:00+00:00';
const at = '2026-11-26T10:00:00.000Z';

describe("the courier's counts with what waits on the phone (decision 120)", () => {
  it('a delivery waiting to be sent is done, not to do; a failed attempt waiting is failed', () => {
    const day = { since, stops: [stop('A'), stop('B'), stop('C')], done: 2, failed: 1 };
    expect(countsWithQueue(day, [])).toEqual({ left: 3, done: 2, failed: 1 });
    expect(
      countsWithQueue(day, [
        { tid: 'A', status: 'OutForDelivery', occurredAt: at },
        { tid: 'B', status: 'FailAttempt', occurredAt: at },
        { tid: 'A', status: 'Delivered', occurredAt: at },
      ]),
    ).toEqual({ left: 2, done: 3, failed: 2 });
  });
  it('a delivery the server already has (the stop left the list) is not counted twice', () => {
    expect(countsWithQueue({ since, stops: [stop('B')], done: 1, failed: 0 }, [{ tid: 'A', status: 'Delivered', occurredAt: at }])).toEqual(
      {
        left: 1,
        done: 1,
        failed: 0,
      },
    );
  });
  it('what was done before the day started and still waits is not today’s, but the stop is done (decision 138)', () => {
    const yesterday = '2026-11-25T23:55:00.000Z';
    const day = { since, stops: [stop('A'), stop('B')], done: 0, failed: 0 };
    expect(
      countsWithQueue(day, [
        { tid: 'A', status: 'Delivered', occurredAt: yesterday },
        { tid: 'B', status: 'FailAttempt', occurredAt: yesterday },
      ]),
    ).toEqual({ left: 1, done: 0, failed: 0 });
  });
});

describe('the order of the day with what waits on the phone (decision 138)', () => {
  it('the stops delivered on the phone leave the stops to do and go last, the rest keep their order', () => {
    const day = { stops: [stop('A'), stop('B'), stop('C')] };
    const { todo, doneHere } = dayOrder(day, [
      { tid: 'A', status: 'Delivered', occurredAt: at },
      { tid: 'B', status: 'FailAttempt', occurredAt: at },
    ]);
    expect(todo.map((s) => s.tid)).toEqual(['B', 'C']);
    expect(doneHere.map((s) => s.tid)).toEqual(['A']);
    expect(dayOrder(day, []).todo.map((s) => s.tid)).toEqual(['A', 'B', 'C']);
  });
});
