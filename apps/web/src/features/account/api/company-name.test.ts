import { describe, expect, it } from 'vitest';
import { COMPANY_NAME_REQUIRED, validateCompanyName } from './company-name';

describe('company name in the wizard', () => {
  it('is required and at most 200 characters', () => {
    expect(validateCompanyName('  ')).toBe(COMPANY_NAME_REQUIRED);
    expect(validateCompanyName('Acme Deliveries')).toBeNull();
    expect(validateCompanyName('x'.repeat(201))).toBe('Must be at most 200 characters');
  });
});
