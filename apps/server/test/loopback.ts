import type http from 'node:http';
import { createServer } from 'node:net';
import type net from 'node:net';

/** A test's server listening on a free loopback port. */
export interface Loopback {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `server` on a free port of 127.0.0.1: the one start-up of every loopback fake the tests run (carriers,
 * SMTP, Twilio, webhook receivers, gateways). Closing ends an HTTP server's open connections first (a keep-alive
 * client would otherwise hold the close open); `stop` replaces the close for a server that has its own (SMTP).
 */
export async function onLoopback(server: net.Server | http.Server, stop?: (done: () => void) => void): Promise<Loopback> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        if (stop) return stop(r);
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A free loopback port that nothing listens on yet (a child process or a later server takes it). */
export async function freePort(): Promise<number> {
  const s = await onLoopback(createServer());
  await s.close();
  return s.port;
}
