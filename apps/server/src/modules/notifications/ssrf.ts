import { Resolver as DnsResolver, lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { MSG } from '@shiptrail/contract';
import { AppError } from '../../lib/errors.ts';

/**
 * SSRF guard for webhook URLs (ARCHITECTURE §5): a webhook must not reach the server's own network
 * (loopback, private ranges, link-local and the cloud metadata address 169.254.169.254, unique-local
 * IPv6, ...). Only addresses ipaddr.js classifies as plain 'unicast' are allowed; IPv4-mapped IPv6
 * (::ffff:10.0.0.1) is unwrapped first, and the IPv6 forms that embed an IPv4 address (6to4, Teredo,
 * NAT64) are not 'unicast', so they are refused too. The check runs at save and again at send, after
 * DNS resolution, and the connection is pinned to the address that was checked (no DNS rebinding).
 * WEBHOOK_ALLOW_PRIVATE=true turns the address rule off, for development and tests.
 */
export class UnsafeWebhookUrlError extends AppError {
  constructor(reason: string) {
    super(400, reason, 'unsafe_webhook_url', { errors: { 'receiveNotification.webhook.endpoint': reason } });
  }
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the connection must use. */
  address: string;
  family: 4 | 6;
}

/** Whether an IP address (v4 or v6, any textual form) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // ipaddr.js reads the IPv4-compatible text form ::a.b.c.d as if it were the mapped ::ffff:a.b.c.d;
  // the URL parser's canonical form (::7f00:1) is read correctly, so IPv6 is checked in that form.
  const canonical = address.includes(':') ? canonicalV6(address) : address;
  if (canonical === null) return false;
  const ip = ipaddr.process(canonical); // unwraps ::ffff:a.b.c.d to a.b.c.d
  if (ip.range() !== 'unicast') return false;
  // ipaddr.js calls everything it has no name for 'unicast', including the deprecated IPv4-compatible
  // form ::a.b.c.d (::/96) and other unassigned space. Public IPv6 is the global unicast block 2000::/3
  // only, less the returned 6bone block 3ffe::/16.
  if (ip.kind() === 'ipv6') return ip.match(GLOBAL_UNICAST_V6) && !ip.match(SIX_BONE);
  return true;
}
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
function canonicalV6(address: string): string | null {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}
const SIX_BONE = ipaddr.parseCIDR('3ffe::/16');

export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrlError(MSG.urlInvalid);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeWebhookUrlError('The webhook URL must start with http:// or https://');
  if (!url.hostname) throw new UnsafeWebhookUrlError(MSG.urlInvalid);
  return url;
}

/**
 * A lookup that could not be answered just now (the resolver unreachable, timing out or failing: EAI_AGAIN,
 * ESERVFAIL, ETIMEOUT, ECONNREFUSED), as opposed to a name that does not exist. Not the URL's fault: at send it is
 * retried like a refused connection; at save the URL is kept, since every send checks it again (decision 181).
 */
export class WebhookLookupUnavailableError extends Error {
  readonly host: string;
  readonly code: string;
  constructor(host: string, code: string) {
    super(`The webhook host ${host} could not be looked up just now (${code})`);
    this.host = host;
    this.code = code;
  }
}

/** Answers that say the name has no address: the URL is wrong, and asking again will not change it. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'ENONAME', 'EAI_NONAME', 'EAI_NODATA']);

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;
const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The resolver webhooks use: the system's (getaddrinfo, /etc/hosts included) unless WEBHOOK_DNS_SERVERS names
 * DNS servers (`ip` or `ip:port`, comma-separated) to ask instead, with A and AAAA records.
 */
export function webhookResolver(servers: string[] | undefined): Resolver {
  if (!servers?.length) return systemResolver;
  const dns = new DnsResolver({ timeout: 2000, tries: 2 });
  dns.setServers(servers);
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([dns.resolve4(host), dns.resolve6(host)]);
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length) return found;
    // Neither family answered: a failure of either that is not "no such name" is the one to report.
    const errors = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
    throw errors.find((e) => !NO_SUCH_NAME.has(String(e.code))) ?? errors[0] ?? Object.assign(new Error('no address'), { code: 'ENODATA' });
  };
}
const resolvers = new Map<string, Resolver>();
/** One resolver per server list, kept for the process. */
export function resolverFor(servers: string[] | undefined): Resolver {
  const key = (servers ?? []).join(',');
  let r = resolvers.get(key);
  if (!r) resolvers.set(key, (r = webhookResolver(servers)));
  return r;
}

/** The guard's options as the configuration sets them (the address rule, the resolver), for save and send alike. */
export const targetOptions = (config: { WEBHOOK_ALLOW_PRIVATE: boolean; WEBHOOK_DNS_SERVERS?: string[] }) => ({
  allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
  resolve: resolverFor(config.WEBHOOK_DNS_SERVERS),
});

/**
 * Resolve the URL's host and check every address it resolves to. Refusing when any address is private
 * (not just the first) means a name with one public and one internal record cannot be used to pivot. A name that
 * does not exist is refused for good; a resolver that cannot answer just now throws WebhookLookupUnavailableError.
 */
export async function resolveWebhookTarget(raw: string, opts: { allowPrivate: boolean; resolve?: Resolver }): Promise<ResolvedTarget> {
  const url = parseWebhookUrl(raw);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addrs: Array<{ address: string; family: number }>;
  if (isIP(host)) addrs = [{ address: host, family: isIP(host) }];
  else {
    try {
      addrs = await (opts.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = String((err as NodeJS.ErrnoException).code ?? '');
      if (code && !NO_SUCH_NAME.has(code)) throw new WebhookLookupUnavailableError(host, code);
      throw new UnsafeWebhookUrlError(`The webhook host ${host} could not be resolved`);
    }
    if (addrs.length === 0) throw new UnsafeWebhookUrlError(`The webhook host ${host} could not be resolved`);
  }
  if (!opts.allowPrivate) {
    const bad = addrs.find((a) => !isPublicAddress(a.address));
    if (bad)
      throw new UnsafeWebhookUrlError('The webhook URL must point to a public address (not loopback, private, link-local or metadata)');
  }
  const first = addrs[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
