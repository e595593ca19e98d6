import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key under which a client address is counted by the per-address limits: an IPv4 address itself, an IPv6
 * address's /64 (one subscriber usually holds a whole /64, so counting single IPv6 addresses counts nothing), an
 * IPv4-mapped IPv6 address as its IPv4 address. Anything else (a unix socket, undefined) is its own key.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip)) return ip;
  const bare = ip.replace(/%.*$/, ''); // zone index
  if (!isIPv6(bare)) return ip;
  return `${expandIPv6(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lowercase hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  let s = ip.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4 was handled; 64:ff9b::1.2.3.4 and the like) becomes two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = s.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
