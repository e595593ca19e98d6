import { request } from '../../../lib/api-client';

/** Asks the server for the Google consent URL; the server keeps the state, the browser stores nothing. */
export async function googleAuthUrl(mode: 'login' | 'signup'): Promise<string> {
  const redirectUri = `${window.location.origin}/${mode === 'login' ? '?login=1' : ''}`;
  const env = await request<Record<string, string>>('/v1/user/general/login', {
    auth: false,
    body: { action: mode === 'login' ? 'generate-google-auth-url' : 'generate-google-signup-url', redirectUri },
    transportError: 'Error',
  });
  const url = env.payload?.['google-auth-url'];
  if (!url) throw new Error(env.message || 'Error');
  return url;
}
