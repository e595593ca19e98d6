import { describe, expect, it } from 'vitest';
import { loginPasswordRequest, MSG, signupRequest } from '@shiptrail/contract';
import { zodResolver } from './zod-resolver';

describe('zodResolver', () => {
  it('maps contract messages to fields', () => {
    const v = zodResolver(loginPasswordRequest);
    expect(v({ email: '', password: '' })).toEqual({ email: MSG.emailRequired, password: MSG.passwordRequired });
    expect(v({ email: 'a@b.co', password: 'secret1' })).toEqual({});
  });
  it('reports refinements on their path', () => {
    const v = zodResolver(signupRequest);
    const e = v({ email: 'a@b.co', password: 'longenough', repassword: 'other', terms: true, userType: 'person' });
    expect(e.repassword).toBe(MSG.passwordsMismatch);
  });
});
