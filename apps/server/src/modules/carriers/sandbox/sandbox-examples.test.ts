// The numbers the README and the add-tracking form offer on a sandbox deployment must move: each plays the journey
// it is listed under and is detected as its carrier. (1Z999AA10123456784, the old README example, is never found.)
import { describe, expect, it } from 'vitest';
import { COURIER_SLUGS, SANDBOX_EXAMPLES } from '@shiptrail/contract';
import { describeSandboxJourney } from './journeys.ts';
import { detectCarriers } from '../detect.ts';

describe('sandbox example numbers', () => {
  it.each(COURIER_SLUGS)('%s: one delivered and one fail-attempt journey, detected as that carrier', (courier) => {
    const { delivered, failAttempt } = SANDBOX_EXAMPLES[courier];
    expect(describeSandboxJourney(delivered).journey).toBe('delivered');
    expect(describeSandboxJourney(failAttempt).journey).toBe('fail-attempt');
    expect(detectCarriers(delivered).map((d) => d.courier)).toContain(courier);
    expect(detectCarriers(failAttempt).map((d) => d.courier)).toContain(courier);
  });
  it('no longer uses the never-found number', () => {
    expect(describeSandboxJourney('1Z999AA10123456784').journey).toBe('not-found');
    expect(Object.values(SANDBOX_EXAMPLES).flatMap((e) => [e.delivered, e.failAttempt])).not.toContain('1Z999AA10123456784');
  });
});
