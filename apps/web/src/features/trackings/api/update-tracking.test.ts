import { describe, expect, it } from 'vitest';
import { editValuesOf, updateBodyOf } from './update-tracking';
import type { Tracking } from './types';

const t: Tracking = { tid: '1Z12345E0205271688', courier: 'ups', title: 'Camera lens', notify: { email: 'a@example.com', phone: null }, note: null };

describe('update tracking body', () => {
  it('prefills the form from the tracking, empty strings for missing fields', () => {
    expect(editValuesOf(t)).toEqual({ courier: 'ups', title: 'Camera lens', orderId: '', customer: '', notify: { email: 'a@example.com', phone: '' }, note: '' });
  });
  it('leaves the courier out when unchanged and trims the details', () => {
    const body = updateBodyOf(t, { ...editValuesOf(t), title: '  New lens ', note: ' fragile ' });
    expect(body).toEqual({ tid: t.tid, title: 'New lens', orderId: '', customer: '', notify: { email: 'a@example.com', phone: '' }, note: 'fragile' });
    expect('courier' in body).toBe(false);
  });
  it('sends a changed courier', () => {
    expect(updateBodyOf(t, { ...editValuesOf(t), courier: 'fedex' }).courier).toBe('fedex');
    expect(updateBodyOf({ ...t, courier: null }, { ...editValuesOf({ ...t, courier: null }) }).courier).toBeUndefined();
  });
});
