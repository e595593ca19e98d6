import { MSG, hasUnsafeText } from '@shiptrail/contract';

/** The name a company's customers see on its mails and tracking pages (instead of the owner's own name). */
export const COMPANY_NAME_REQUIRED = 'Company name is required';
export const COMPANY_NAME_MAX = 200;

export const validateCompanyName = (v: string) => {
  const t = v.trim();
  if (!t) return COMPANY_NAME_REQUIRED;
  if (hasUnsafeText(t)) return MSG.companyInvalid;
  return t.length > COMPANY_NAME_MAX ? `Must be at most ${COMPANY_NAME_MAX} characters` : null;
};
