import { request } from './api-client';

/** Best effort: the local session is cleared whatever the server says. */
export async function logout() {
  try {
    await request<unknown>('/v1/user/general/logout', { method: 'POST', body: {} });
  } catch {
    /* the session may already be gone */
  }
}
