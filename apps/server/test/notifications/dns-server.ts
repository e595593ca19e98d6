// A DNS server on loopback UDP for the webhook tests (WEBHOOK_DNS_SERVERS points at it): it answers A queries for
// the names it is given, fails with SERVFAIL for the names set to fail (a resolver that cannot answer just now), and
// says NXDOMAIN for every other name, at once (RFC 1035 §4.1 message format: header, question, answers).
import dgram from 'node:dgram';

type Answer = { a: string } | 'servfail';

const RCODE = { ok: 0, servfail: 2, nxdomain: 3 } as const;

/** The question's name (lowercase, dotted), its type and where the question ends. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let i = 12;
  while (msg[i]! > 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('ascii'));
    i += msg[i]! + 1;
  }
  i += 1;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(i), end: i + 4 };
}

function reply(query: Buffer, rcode: number, a?: string): Buffer {
  const q = readQuestion(query);
  const answer = a && q.type === 1;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  header.writeUInt16BE(0x8180 | rcode, 2); // a response, recursion desired and available
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(answer ? 1 : 0, 6);
  const parts = [header, query.subarray(12, q.end)];
  if (answer) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(1, 2); // A
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(0, 6); // TTL 0: never cached
    rr.writeUInt16BE(4, 10);
    a.split('.').forEach((octet, k) => rr.writeUInt8(Number(octet), 12 + k));
    parts.push(rr);
  }
  return Buffer.concat(parts);
}

export async function startDnsServer() {
  const names = new Map<string, Answer>();
  const asked: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    const { name } = readQuestion(msg);
    asked.push(name);
    const known = names.get(name);
    const out =
      known === undefined ? reply(msg, RCODE.nxdomain) : known === 'servfail' ? reply(msg, RCODE.servfail) : reply(msg, RCODE.ok, known.a);
    socket.send(out, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    asked,
    set: (name: string, answer: Answer) => names.set(name.toLowerCase(), answer),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
