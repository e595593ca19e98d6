import { describe, expect, it } from 'vitest';
import { shipmentRoute } from './shipment-geo';

const address = (lat: number | null, long: number | null) => ({ lat, long }) as never;
const cp = (lat: number | null, long: number | null) => ({ lat, long }) as never;

describe('shipmentRoute', () => {
  it('runs origin → last positioned checkpoint → destination, skipping what has no position', () => {
    const r = shipmentRoute({
      origin: address(34, -118),
      destination: address(40.7, -74),
      checkpoints: [cp(null, null), cp(39.1, -94.6), cp(36, -115)],
    });
    expect(r).toEqual([
      { kind: 'origin', lat: 34, lng: -118 },
      { kind: 'checkpoint', lat: 39.1, lng: -94.6 },
      { kind: 'destination', lat: 40.7, lng: -74 },
    ]);
  });
  it('is empty for a shipment with no known position', () => {
    expect(shipmentRoute({ origin: address(null, null), destination: address(null, 5), checkpoints: [] })).toEqual([]);
  });
});
