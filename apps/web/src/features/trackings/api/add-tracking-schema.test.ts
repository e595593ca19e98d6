import { describe, expect, it } from 'vitest';
import { MSG, TRACKING_NUMBER_MAX } from '@shiptrail/contract';
import { zodResolver } from '../../../lib/zod-resolver';
import { addTrackingForm } from './add-tracking-schema';

// The add form checks the tracking number with the contract's limit and message, the same the server uses.
describe('add-tracking form: tracking number length', () => {
  const validate = zodResolver(addTrackingForm);
  it(`takes ${TRACKING_NUMBER_MAX} characters and refuses one more with the contract's message`, () => {
    expect(validate({ tid: '4'.repeat(TRACKING_NUMBER_MAX), courier: 'auto' })).toEqual({});
    expect(validate({ tid: '4'.repeat(TRACKING_NUMBER_MAX + 1), courier: 'auto' })).toEqual({ tid: MSG.trackingNumberTooLong });
  });
});
