// The web app's one way to the API, against a real HTTP server on loopback: the session token goes out,
// the envelope comes back, failures become ApiError with the server's field errors, and a 401 ends the
// session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_TOKEN_HEADER } from '@shiptrail/contract';
import { ApiError, request, requestPayload } from './api-client';
import { getSession, setSession } from './session';
import { envelope, startLoopbackApi, type LoopbackApi } from './testing/loopback-api';

let api: LoopbackApi;
let seen: LoopbackApi['seen'];
beforeAll(async () => {
  api = await startLoopbackApi();
  seen = api.seen;
});
afterAll(() => api.close());
beforeEach(() => {
  seen.length = 0;
  setSession(null);
});

describe('request', () => {
  it('sends the session token and a JSON body, and resolves with the envelope', async () => {
    setSession({ token: 'sess-1', version: 'v1' });
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', { n: 1 }) });
    const env = await request<{ n: number }>('/v1/thing', { body: { a: 1 } });
    expect(env).toEqual({ code: 200, status: 'success', message: 'OK', payload: { n: 1 } });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/thing', body: '{"a":1}' });
    expect(seen[0]!.headers[API_TOKEN_HEADER]).toBe('sess-1');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('leaves the token out when asked (verify, reset, public pages)', async () => {
    setSession({ token: 'sess-1', version: 'v1' });
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', null) });
    await request('/v1/public', { auth: false });
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.headers[API_TOKEN_HEADER]).toBeUndefined();
  });

  it("rejects a 'fail' envelope with the server's message, code and field errors; the session stays", async () => {
    setSession({ token: 'sess-1', version: 'v1' });
    api.answer = () => ({
      status: 400,
      body: envelope(400, 'fail', 'Invalid email address', { errors: { email: 'Invalid email address' } }),
    });
    const e = await request('/v1/x', { body: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ message: 'Invalid email address', code: 400, errors: { email: 'Invalid email address' } });
    expect(getSession()).toEqual({ token: 'sess-1', version: 'v1' });
  });

  it('reads the result from the envelope even when the HTTP status is 200 (the default /v1 contract)', async () => {
    api.answer = () => ({ status: 200, body: envelope(409, 'fail', 'Already there', null) });
    await expect(request('/v1/x')).rejects.toMatchObject({ message: 'Already there', code: 409, errors: {} });
  });

  it('a 401 ends the session so the guard sends the user to the landing page', async () => {
    setSession({ token: 'stale', version: 'v1' });
    api.answer = () => ({ status: 401, body: envelope(401, 'fail', 'Please log in again', null) });
    await expect(requestPayload('/v1/user/info')).rejects.toMatchObject({ code: 401 });
    expect(getSession()).toBeNull();
  });

  it('a body that is not an envelope, or no server at all, gives the transport message', async () => {
    api.answer = () => ({ status: 502, body: '<html>bad gateway</html>' });
    await expect(request('/v1/x', { transportError: 'Send error!' })).rejects.toMatchObject({ message: 'Send error!', code: 502 });
    await expect(request('http://127.0.0.1:1/v1/x', { transportError: 'Send error!' })).rejects.toMatchObject({
      message: 'Send error!',
      code: 0,
    });
  });
});
