import { z } from 'zod';
import * as A from './accounts.ts';

/**
 * The /v1 calls, described once. The server builds its OpenAPI document from this list and a test checks
 * that every registered route is listed; the web's /developers page renders the document.
 */
export interface EndpointDef {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI path form, e.g. /v1/trackings/delete/{tid}. */
  path: string;
  summary: string;
  tag: string;
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodObject;
  response?: z.ZodType;
}

const ok = z.object({}).loose();

export const accountEndpoints: EndpointDef[] = [
  { method: 'POST', path: '/v1/user/general/signup', summary: 'Create an account (credits the sign-up bonus)', tag: 'Account', auth: false, body: A.signupRequest, response: A.sessionPayloadSchema },
  { method: 'POST', path: '/v1/user/general/login', summary: 'Log in with email and password, a Google code, or ask for a Google sign-in URL', tag: 'Account', auth: false, body: z.union([A.loginPasswordRequest, A.loginCodeRequest, A.loginActionRequest]), response: A.sessionPayloadSchema },
  { method: 'POST', path: '/v1/user/general/logout', summary: 'End the current web session', tag: 'Account', auth: true },
  { method: 'GET', path: '/v1/user/email/verify/{key}', summary: 'Verify an email address', tag: 'Account', auth: false },
  { method: 'GET', path: '/v1/user/email/verify/resend', summary: 'Send the activation email again', tag: 'Account', auth: true },
  { method: 'GET', path: '/v1/user/password/recover/{email}', summary: 'Email a password reset link', tag: 'Account', auth: false },
  { method: 'POST', path: '/v1/user/general/passwordreset', summary: 'Set a new password with a reset key', tag: 'Account', auth: false, body: A.passwordResetRequest },
  { method: 'POST', path: '/v1/user/general/passwordupdate', summary: 'Change the password', tag: 'Account', auth: true, body: A.passwordUpdateRequest },
  { method: 'GET', path: '/v1/user/info', summary: 'Profile, dashboard counts, settings and alerts', tag: 'Account', auth: true, response: A.userInfoSchema },
  { method: 'POST', path: '/v1/user/general/update', summary: 'Update the profile and/or settings', tag: 'Account', auth: true, body: A.updateRequest, response: A.userInfoSchema },
  { method: 'POST', path: '/v1/user/general/generatenewtoken', summary: 'Replace the API key (the old key stops working at once)', tag: 'Account', auth: true, response: z.object({ token: z.string() }) },
  { method: 'POST', path: '/v1/user/general/getintouch', summary: 'Contact form', tag: 'Account', auth: false, body: A.getInTouchRequest },
  { method: 'POST', path: '/v1/user/general/supportrequest', summary: 'Ask support for help', tag: 'Account', auth: true, body: A.supportRequest },
  { method: 'POST', path: '/v1/user/general/invitefriend', summary: 'Invite a friend (you get a reward on their first payment)', tag: 'Account', auth: true, body: A.inviteRequest },
  { method: 'POST', path: '/v1/user/alerts/dismiss/{id}', summary: 'Dismiss an alert', tag: 'Account', auth: true, response: ok },
  { method: 'GET', path: '/v1/info/pricing', summary: 'Prices and constants', tag: 'Info', auth: false, response: A.pricingSchema },
];

/** Features append their lists here (trackings, carriers, notifications, ...). */
export const endpoints: EndpointDef[] = [...accountEndpoints];
