// What never reaches a log line (docs/operations.md, "Logs"): credentials in headers, and one-time keys that
// travel in addresses (an email verification or password reset link, an OAuth callback's code).

/** Header paths pino's redaction censors in Fastify's request and response lines. */
export const LOG_REDACT = ['req.headers["sm-api-token"]', 'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

export const CENSOR = '[redacted]';

// Paths whose last segment is a one-time key: the API's verify call and the web pages the mails link to.
const KEY_IN_PATH = /^(\/v1\/user\/email\/verify\/|\/verify\/|\/password\/reset\/)[^/?#]+/;
// Query parameters that carry a secret in any route (OAuth code and state, tokens, keys, nonces, signatures).
const SECRET_PARAM =
  /^(code|state|token|access_token|id_token|key|api_key|apikey|sm-api-token|nonce|secret|signature|password|verifycode)$/i;

/** The address as it may be logged: one-time keys in the path and secret query values censored. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(KEY_IN_PATH, `$1${CENSOR}`);
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        /* a malformed escape: judge the raw name */
      }
      return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=${CENSOR}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}
