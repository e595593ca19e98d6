import { describe, expect, it } from 'vitest';
import { checkpointSchema } from './checkpoints.ts';
import { checkpointSchema as trackingCheckpoint, publicTrackingSchema, trackingViewSchema } from './trackings.ts';
import { publicShipmentSchema } from './shipments.ts';

describe('one checkpoint schema', () => {
  it('the tracking views and the public shipment view use the same schema', () => {
    expect(trackingCheckpoint).toBe(checkpointSchema);
    expect(trackingViewSchema.shape.lastCheckPoint.unwrap()).toBe(checkpointSchema);
    expect(publicTrackingSchema.shape.lastCheckPoint.unwrap()).toBe(checkpointSchema);
    expect(publicShipmentSchema.shape.lastCheckPoint.unwrap()).toBe(checkpointSchema);
    // The public shipment's list adds only the signer's name and the position (the route map) to the shared fields.
    const item = publicShipmentSchema.shape.checkpoints.element;
    expect(Object.keys(item.shape).sort()).toEqual([...Object.keys(checkpointSchema.shape), 'signedBy', 'lat', 'long'].sort());
  });
  it('accepts a status event and refuses an unknown status or a missing time', () => {
    const ok = { status: 'InTransit', location: null, message: 'Departed', time: '2026-11-23T10:00:00Z' };
    expect(checkpointSchema.parse(ok)).toEqual(ok);
    expect(checkpointSchema.safeParse({ ...ok, status: 'Teleported' }).success).toBe(false);
    const { time: _time, ...noTime } = ok;
    expect(checkpointSchema.safeParse(noTime).success).toBe(false);
    expect(publicShipmentSchema.shape.checkpoints.element.safeParse(ok).success).toBe(false);
    const item = { ...ok, signedBy: 'Ada', lat: 40.7, long: -74 };
    expect(publicShipmentSchema.shape.checkpoints.element.parse(item)).toEqual(item);
  });
});
