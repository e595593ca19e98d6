import { request } from '../../../lib/api-client';

export interface ContactBody {
  name: string;
  email: string;
  phone?: string;
  message: string;
  recaptcha?: string;
}

export const getInTouch = (body: ContactBody) =>
  request<unknown>('/v1/user/general/getintouch', { body, auth: false, transportError: 'Send error!' });
