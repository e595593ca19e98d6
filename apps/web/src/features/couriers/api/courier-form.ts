import { addMemberRequest, updateMemberRequest, type MemberView } from '@shiptrail/contract';
import { zodResolver } from '../../../lib/zod-resolver';

export interface CourierValues {
  email: string;
  /** Hidden in the form and fixed to courier, as the only role a company gives its members. */
  role: 'courier';
  firstName: string;
  lastName: string;
  phone: string;
  password: string;
}

export const ADD_FIELDS = ['email', 'role', 'firstName', 'lastName', 'phone', 'password'] as const;
export const EDIT_FIELDS = ['email', 'role', 'firstName', 'lastName', 'phone'] as const;

export const emptyCourier = (): CourierValues => ({ email: '', role: 'courier', firstName: '', lastName: '', phone: '', password: '' });
export const courierValuesOf = (m: MemberView): CourierValues => ({
  email: m.email,
  role: 'courier',
  firstName: m.firstName,
  lastName: m.lastName,
  phone: m.phone,
  password: '',
});

export function toAddBody(v: CourierValues) {
  return {
    email: v.email.trim(),
    role: v.role,
    firstName: v.firstName.trim(),
    lastName: v.lastName.trim(),
    phone: v.phone.trim(),
    password: v.password,
  };
}
/** The member is named by uid, so its email can change too. */
export function toEditBody(uid: string, v: CourierValues) {
  return { uid, email: v.email.trim(), role: v.role, firstName: v.firstName.trim(), lastName: v.lastName.trim(), phone: v.phone.trim() };
}

export const validateAdd = (v: CourierValues) => zodResolver(addMemberRequest)(toAddBody(v));
export const validateEdit = (uid: string) => (v: CourierValues) => zodResolver(updateMemberRequest)(toEditBody(uid, v));
