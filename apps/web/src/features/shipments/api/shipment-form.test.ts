// The Add New Shipment wizard's rules: the contract's create schema run on what the form would send, with the
// spec's messages under the form's field names, and the first page held back only by its own fields.
import { describe, expect, it } from 'vitest';
import { createShipmentRequest, MSG } from '@shiptrail/contract';
import {
  emptyShipment,
  pageOneErrors,
  toCreateBody,
  toEditBody,
  UNASSIGNED,
  validateShipment,
  valuesOf,
  type ShipmentValues,
} from './shipment-form';

function filled(): ShipmentValues {
  const v = emptyShipment();
  v.courierEmail = 'dana@example.com';
  v.orderId = 'ORD-1';
  v.message = 'Ring twice';
  v.origin = { ...v.origin, name: 'Acme', address1: '1 Main St', city: 'Springfield', zip: '62701' };
  v.destination = {
    ...v.destination,
    name: 'Jo Doe',
    address1: '9 Elm St',
    city: 'Austin',
    zip: '73301',
    phone: '(212) 555-0142',
    email: 'jo@example.com',
  };
  v.parcels = [{ name: 'Box', quantity: 2, length: 10, width: 8, height: 4, weight: 3, distanceUnit: 'in', weightUnit: 'lb' }];
  return v;
}

describe('shipment wizard validation', () => {
  it('an empty first page says the courier and both address1 fields are required, in the spec words', () => {
    const errors = pageOneErrors(validateShipment(emptyShipment(), ''));
    expect(errors.courierEmail).toBe('Courier is required.');
    expect(errors['origin.address1']).toBe('Origin address1 is required');
    expect(errors['destination.address1']).toBe('Destination address1 is required');
    expect(errors['origin.city']).toBeTruthy();
    expect(errors['destination.zip']).toBeTruthy();
    // The courier name follows the chosen member: one message, on the select.
    expect(errors.courier).toBeUndefined();
  });

  it('parcel errors do not stop the first page, and are reported for the second', () => {
    const v = filled();
    v.parcels = [{ ...v.parcels[0]!, name: '', length: '' }];
    const all = validateShipment(v, 'Dana Lee');
    expect(all['parcels.0.name']).toBe('Parcel name is required');
    expect(all['parcels.0.length']).toBe('Length is required');
    expect(pageOneErrors(all)).toEqual({});
  });

  it('checks the destination phone as a US number', () => {
    const v = filled();
    v.destination.phone = '12';
    expect(validateShipment(v, 'Dana Lee')['destination.phone']).toBe('Invalid phone number');
  });

  it('a filled form is valid and sends what the SDK schema accepts, empty boxes left out', () => {
    const v = filled();
    expect(validateShipment(v, 'Dana Lee')).toEqual({});
    const body = toCreateBody(v, 'Dana Lee');
    expect(createShipmentRequest.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ courier: 'Dana Lee', courierEmail: 'dana@example.com', orderId: 'ORD-1', message: 'Ring twice' });
    expect(body.origin).not.toHaveProperty('company', '');
    expect(body.origin.company).toBeUndefined();
    expect(body.expected).toBeUndefined();
    expect(body.parcels?.[0]).toMatchObject({ name: 'Box', quantity: 2, length: 10, weight: 3 });
  });

  it('a courier email without a member name still reads as no courier', () => {
    const v = filled();
    v.courierEmail = '';
    expect(validateShipment(v, '').courierEmail).toBe('Courier is required.');
  });

  it('the edit form starts from the shipment and sends its tid with the changes', () => {
    const v = filled();
    const body = toCreateBody(v, 'Dana Lee');
    const view = {
      tid: 'SHM000000000018',
      courier: 'Dana Lee',
      courierEmail: 'dana@example.com',
      orderId: 'ORD-1',
      message: 'Ring twice',
      expected: '2026-12-01T00:00:00.000Z',
      origin: { ...v.origin, lat: null, long: null },
      destination: { ...v.destination, lat: null, long: null },
      parcels: [{ id: 'p1', metadata: {}, ...(body.parcels?.[0] as object) }],
    } as unknown as Parameters<typeof valuesOf>[0];
    const values = valuesOf(view);
    expect(values.expected).toBe('2026-12-01');
    values.message = '';
    const edit = toEditBody('SHM000000000018', values, 'Dana Lee');
    expect(edit).toMatchObject({ tid: 'SHM000000000018', message: '', courierEmail: 'dana@example.com', expected: '2026-12-01' });
    expect(validateShipment(values, 'Dana Lee', 'edit')).toEqual({});
  });
});

describe("the customer's delivery window (decision 118)", () => {
  it("sends the window on create, clears it on edit with an empty time, and shows the contract's messages", () => {
    const v = { ...filled(), windowFrom: '10:00', windowTo: '12:00' };
    expect(toCreateBody(v, 'Dana Lee')).toMatchObject({ windowFrom: '10:00', windowTo: '12:00' });
    expect(validateShipment(v, 'Dana Lee')).toEqual({});
    expect(toEditBody('SHM000000000018', { ...v, windowFrom: '', windowTo: '' }, 'Dana Lee')).toMatchObject({
      windowFrom: '',
      windowTo: '',
    });
    expect(validateShipment({ ...v, windowTo: '09:00' }, 'Dana Lee')).toMatchObject({ windowTo: MSG.planWindowOrder });
    expect(validateShipment({ ...v, windowFrom: '25:00' }, 'Dana Lee')).toMatchObject({ windowFrom: MSG.planTimeFormat });
  });
});

describe('a shipment created with nobody assigned (decision 098)', () => {
  it('sends unassigned: true without courier fields, and the contract accepts it', () => {
    const v = { ...filled(), courierEmail: UNASSIGNED };
    const body = toCreateBody(v, '');
    expect(body.unassigned).toBe(true);
    expect('courier' in body || 'courierEmail' in body).toBe(false);
    expect(createShipmentRequest.safeParse(body).success).toBe(true);
    expect(validateShipment(v, '')).toEqual({});
  });
});
