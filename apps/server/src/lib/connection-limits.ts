import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { failure } from './http.ts';
import { addressKey } from './client-address.ts';

export const TOO_MANY_CONNECTIONS = 'Too many open connections from this address: close some, then try again';
export const TOO_MANY_REQUESTS_IN_FLIGHT = 'Too many requests under way from this address: wait for some to finish, then try again';

/** The raw 429 a refused connection gets before it is closed (no request of it has been read). */
function refuseSocket(socket: Socket): void {
  const body = JSON.stringify(failure(429, TOO_MANY_CONNECTIONS));
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 10\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/**
 * Caps on what one client address may hold open (docs/operations.md "Limits"):
 * - `perAddress` sockets per peer address (per /64 for IPv6), counted when the socket opens. Behind a proxy the
 *   peer is the proxy, so the caller passes 0 there and the proxy caps connections;
 * - `inFlightPerAddress` requests under way per client address (req.ip: behind a trusted proxy, the real client),
 *   from the moment their headers arrive until their answer ends; an open live stream is one;
 * - `max` sockets for the whole process (Node refuses the ones over it).
 */
export function limitConnections(app: FastifyInstance, opts: { perAddress: number; inFlightPerAddress: number; max: number }): void {
  const server: Server = app.server;
  if (opts.max > 0) server.maxConnections = opts.max;
  if (opts.perAddress > 0) {
    const open = new Map<string, number>();
    server.on('connection', (socket: Socket) => {
      const key = addressKey(socket.remoteAddress);
      const n = open.get(key) ?? 0;
      if (n >= opts.perAddress) return refuseSocket(socket);
      open.set(key, n + 1);
      socket.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      });
    });
  }
  if (opts.inFlightPerAddress > 0) {
    const inFlight = new Map<string, number>();
    app.addHook('onRequest', (req, reply, done) => {
      const key = addressKey(req.ip);
      const n = inFlight.get(key) ?? 0;
      if (n >= opts.inFlightPerAddress) {
        reply.code(429).header('retry-after', '10').send(failure(429, TOO_MANY_REQUESTS_IN_FLIGHT));
        return;
      }
      inFlight.set(key, n + 1);
      // 'close' fires once the answer is sent or the client went away, for hijacked live streams too.
      reply.raw.once('close', () => {
        const left = (inFlight.get(key) ?? 1) - 1;
        if (left > 0) inFlight.set(key, left);
        else inFlight.delete(key);
      });
      done();
    });
  }
}
