// What the courier's checkpoint form sends, and when proof of delivery is asked for.
import { describe, expect, it } from 'vitest';
import { emptyCheckpoint, toUpdateBody, validateCheckpoint } from './checkpoint-form';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('checkpoint form', () => {
  it('needs a location', () => {
    expect(validateCheckpoint('SHM1', emptyCheckpoint('InTransit'), true).location).toBe('Location is required');
  });

  it('a courier marking Delivered must give the recipient name and a signature', () => {
    const v = { ...emptyCheckpoint('Delivered'), location: 'Front door' };
    const errors = validateCheckpoint('SHM1', v, true);
    expect(errors.recipientName).toBe('Recipient name is required');
    expect(errors.signature).toBe('Signature is required');
    const ok = validateCheckpoint('SHM1', { ...v, recipientName: 'Jo Doe', signature: PNG }, true);
    expect(ok).toEqual({});
  });

  it('the company may mark Delivered without proof, but not with half of one', () => {
    const v = { ...emptyCheckpoint('Delivered'), location: 'Depot' };
    expect(validateCheckpoint('SHM1', v, false)).toEqual({});
    expect(toUpdateBody('SHM1', v, false)).not.toHaveProperty('proof');
    expect(validateCheckpoint('SHM1', { ...v, recipientName: 'Jo' }, false).signature).toBe('Signature is required');
  });

  it('sends the proof only with Delivered, the position only when both parts are known', () => {
    const base = { ...emptyCheckpoint('InTransit'), location: 'Austin', recipientName: 'Jo', signature: PNG, lat: 30.27 as number | '' };
    const body = toUpdateBody('SHM1', base, true);
    expect(body).toEqual({ tid: 'SHM1', status: 'InTransit', location: 'Austin' });
    const delivered = toUpdateBody('SHM1', { ...base, status: 'Delivered', long: -97.74, photo: 'data:image/jpeg;base64,/9j/' }, true);
    expect(delivered).toEqual({
      tid: 'SHM1',
      status: 'Delivered',
      location: 'Austin',
      lat: 30.27,
      long: -97.74,
      proof: { recipientName: 'Jo', signature: PNG, photo: 'data:image/jpeg;base64,/9j/' },
    });
  });
});
