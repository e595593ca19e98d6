import { describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { ApiError } from '../../../lib/api-client';
import { outcomeOf } from './send-outcome';

const refusal = (code: number, message = 'No') => new ApiError(message, code, { code, status: 'fail', message, payload: null });

describe("what a reply means for an action queued on the courier's phone (decision 120)", () => {
  it('waits on no signal, a server error, a rate limit, an ended session or a key still being handled by another tab', () => {
    expect(outcomeOf(new ApiError('Error', 0, null))).toBe('later');
    expect(outcomeOf(refusal(500))).toBe('later');
    expect(outcomeOf(refusal(503))).toBe('later');
    expect(outcomeOf(refusal(429))).toBe('later');
    expect(outcomeOf(refusal(401, 'Please log in again'))).toBe('later');
    expect(outcomeOf(refusal(409, MSG.idempotencyKeyInProgress))).toBe('later');
    expect(outcomeOf(new TypeError('Failed to fetch'))).toBe('later');
  });
  it("gives up, in the server's words, on a definitive refusal: not yours any more, not found, bad input", () => {
    expect(outcomeOf(refusal(409, MSG.checkpointNotYours))).toBe('refused');
    expect(outcomeOf(refusal(404, MSG.shipmentNotFound))).toBe('refused');
    expect(outcomeOf(refusal(400, MSG.occurredAtTooOld))).toBe('refused');
    expect(outcomeOf(refusal(422, MSG.idempotencyKeyReused))).toBe('refused');
  });
});
