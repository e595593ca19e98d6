import { describe, expect, it } from 'vitest';
import { updateShipmentRequest, type AddressView, type ShipmentView } from '@shiptrail/contract';
import { awaitingPickup, pickupBody, PICKED_UP_MESSAGE } from './pickup';

const origin: AddressView = {
  name: 'Depot',
  company: '',
  address1: '1 Main St',
  address2: '',
  city: 'Chicago',
  state: 'IL',
  zip: '60601',
  country: 'US',
  lat: null,
  long: null,
  email: '',
  phone: '',
};
const stop = (status: ShipmentView['status'], o = origin) => ({ tid: 'SHM123', status, origin: o }) as unknown as ShipmentView;

describe('confirming a pickup (decision 138)', () => {
  it('a shipment Info Received or Pending waits for its pickup; one on its way or with a later action waiting does not', () => {
    expect(awaitingPickup(stop('InfoReceived'))).toBe(true);
    expect(awaitingPickup(stop('Pending'))).toBe(true);
    expect(awaitingPickup(stop('InTransit'))).toBe(false);
    expect(awaitingPickup(stop('OutForDelivery'))).toBe(false);
    expect(awaitingPickup(stop('InfoReceived'), 'InTransit')).toBe(false);
  });
  it('records In Transit at the origin, a body the contract accepts', () => {
    const body = pickupBody(stop('InfoReceived'));
    expect(body).toEqual({ tid: 'SHM123', status: 'InTransit', location: 'Depot, 1 Main St, Chicago', message: PICKED_UP_MESSAGE });
    expect(updateShipmentRequest.safeParse(body).success).toBe(true);
    const placed = pickupBody(stop('InfoReceived', { ...origin, name: '', lat: 41.88, long: -87.63 }));
    expect(placed).toMatchObject({ location: '1 Main St, Chicago', lat: 41.88, long: -87.63 });
  });
});
