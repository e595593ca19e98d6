import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, request } from './api-client';
import { getSession, setSession } from './session';

// The client reads the envelope's code, so it works whether the server answers HTTP 200 with the result in
// `code` (the default /v1 contract) or with real status codes (sm-http-status: real).
let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [, mode, code] = /^\/(\w+)\/(\d+)/.exec(req.url ?? '') ?? [];
    const n = Number(code);
    res.writeHead(mode === 'real' ? n : 200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ code: n, status: n < 300 ? 'success' : 'fail', message: n < 300 ? 'OK' : 'Please log in again', payload: null }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('api-client and the status contract', () => {
  for (const mode of ['envelope', 'real']) {
    it(`a 401 in the envelope drops the session (${mode} HTTP status)`, async () => {
      setSession({ token: 'sess_x', version: 'v' });
      const err = await request(`${base}/${mode}/401`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(401);
      expect((err as ApiError).message).toBe('Please log in again');
      expect(getSession()).toBeNull();
    });
    it(`a success resolves with the envelope (${mode} HTTP status)`, async () => {
      expect((await request(`${base}/${mode}/201`)).code).toBe(201);
    });
  }
});
