import { describe, expect, it } from 'vitest';
import { receiveFormErrors } from './receive-errors';

describe('receive settings: server errors land on the form fields', () => {
  it("maps the webhook check's and the contract's paths to the form's", () => {
    expect(receiveFormErrors({ 'receiveNotification.webhook.endpoint': 'The webhook host nope.invalid could not be resolved' })).toEqual({
      'webhook.endpoint': 'The webhook host nope.invalid could not be resolved',
    });
    expect(receiveFormErrors({ 'settings.receiveNotification.email.endpoint': 'Invalid email address', other: 'x' })).toEqual({
      'email.endpoint': 'Invalid email address',
      other: 'x',
    });
  });
});
