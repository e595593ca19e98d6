import { describe, expect, it } from 'vitest';
import { trackingViewSchema, type TrackingView } from '@shiptrail/contract';
import { editValuesOf, updateBodyOf } from './update-tracking';

// The details the edit form holds, as the tracking below has them.
const details = {
  courier: 'ups',
  title: 'Camera lens',
  orderId: '',
  customer: '',
  notify: { email: 'a@example.com', phone: '' },
  note: '',
};

// A tracking exactly as the server sends it: the contract's schema checks the fixture, so it cannot drift.
const t: TrackingView = trackingViewSchema.parse({
  tid: '1Z12345E0205271688',
  uid: 'u1',
  ...details,
  origin: '',
  destination: '',
  status: 'Pending',
  expected: null,
  estimatedDelivery: null,
  likelyLate: null,
  lastCheckPoint: null,
  checkpoints: [],
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  sandbox: true,
  pushed: false,
  lastHeardAt: null,
  service: null,
});

describe('update tracking body', () => {
  it('prefills the form from the tracking', () => {
    expect(editValuesOf(t)).toEqual(details);
  });
  it('leaves the courier out when unchanged and trims the details', () => {
    const body = updateBodyOf(t, { ...editValuesOf(t), title: '  New lens ', note: ' fragile ' });
    expect(body).toEqual({
      tid: t.tid,
      title: 'New lens',
      orderId: '',
      customer: '',
      notify: { email: 'a@example.com', phone: '' },
      note: 'fragile',
    });
    expect('courier' in body).toBe(false);
  });
  it('sends a changed courier, and none when the field is left empty', () => {
    expect(updateBodyOf(t, { ...editValuesOf(t), courier: 'fedex' }).courier).toBe('fedex');
    expect(updateBodyOf(t, { ...editValuesOf(t), courier: ' ' }).courier).toBeUndefined();
  });
});
