import { describe, expect, it } from 'vitest';
import { parcelFields, type ParcelFields } from './shipments.ts';

describe('parcelFields', () => {
  it('copies a parcel’s own fields and nothing else, inches and pounds when no unit is given', () => {
    const request = { id: 'P-1', name: 'Box', quantity: 2, length: 10, width: 8, height: 4, weight: 3.5, metadata: { a: 1 } };
    expect(parcelFields(request)).toEqual({
      name: 'Box',
      quantity: 2,
      length: 10,
      width: 8,
      height: 4,
      weight: 3.5,
      distanceUnit: 'in',
      weightUnit: 'lb',
    });
    const form: ParcelFields<number | ''> = {
      name: 'Tube',
      quantity: '',
      length: 1,
      width: '',
      height: 2,
      weight: 3,
      distanceUnit: 'cm',
      weightUnit: 'kg',
    };
    expect(parcelFields(form)).toEqual(form);
  });
});
