import type { UserRow } from '../accounts/accounts.service.ts';
import { forbidden } from '../../lib/errors.ts';

export const COMPANY_ONLY = 'Only company accounts have couriers: switch the account type to company under Settings';

/** Members are a company's: a person account or a courier gets 403 (and learns nothing about other accounts). */
export function requireCompany(user: UserRow) {
  if (user.role === 'courier') throw forbidden('Couriers cannot manage members');
  if (user.userType !== 'company') throw forbidden(COMPANY_ONLY);
}
