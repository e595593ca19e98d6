import { randomAlnum, randomToken, sha256 } from '../../lib/crypto.ts';

/** Session tokens carry a prefix so the auth hook knows which table to look in. */
export const SESSION_PREFIX = 'sess_';
export const newSessionToken = () => SESSION_PREFIX + randomToken(32);
/** API keys: 40 alphanumerics, like the original service's tokens (safe in any header or URL). */
export const newApiKey = () => randomAlnum(40);
export { newVersion } from '../../lib/ids.ts';
export const newEmailKey = () => randomToken(24);
export const hashToken = sha256;
