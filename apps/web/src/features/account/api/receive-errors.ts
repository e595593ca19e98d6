/**
 * The server names a refused receive endpoint by its API path (`settings.receiveNotification.webhook.endpoint`
 * from the contract, `receiveNotification.webhook.endpoint` from the webhook address check); the form names it
 * `webhook.endpoint`. Without this the reason ("The webhook host … could not be resolved") reached only a toast
 * and the URL field looked fine.
 */
const PREFIXES = ['settings.receiveNotification.', 'receiveNotification.'];

export function receiveFormErrors(errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(errors)) {
    const prefix = PREFIXES.find((p) => key.startsWith(p));
    out[prefix ? key.slice(prefix.length) : key] = message;
  }
  return out;
}
