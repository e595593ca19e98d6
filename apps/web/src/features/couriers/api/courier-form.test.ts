// The couriers' add and edit forms use the contract's member rules: the spec's messages, the role fixed to courier.
import { describe, expect, it } from 'vitest';
import { emptyCourier, toAddBody, toEditBody, validateAdd, validateEdit } from './courier-form';

describe('courier forms', () => {
  it('an empty add form says what is required, in the spec words', () => {
    const errors = validateAdd(emptyCourier());
    expect(errors).toMatchObject({
      email: 'Email is required',
      firstName: 'First Name is required',
      lastName: 'Last Name is required',
      phone: 'Phone is required',
      password: 'Password is required',
    });
    expect(errors.role).toBeUndefined();
  });

  it('checks email and US phone; the edit form has no password', () => {
    const v = { ...emptyCourier(), email: 'x', firstName: 'Dana', lastName: 'Lee', phone: '12', password: 'password1' };
    expect(validateAdd(v)).toEqual({ email: 'Invalid email address', phone: 'Invalid phone number' });
    const good = { ...v, email: 'dana@example.com', phone: '+1 (212) 555-0142', password: '' };
    expect(validateEdit('u1')(good)).toEqual({});
    expect(toEditBody('u1', good)).not.toHaveProperty('password');
    expect(toAddBody({ ...good, password: 'password1' })).toMatchObject({ role: 'courier', password: 'password1' });
  });
});
