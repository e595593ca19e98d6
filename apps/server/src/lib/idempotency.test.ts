// What makes two requests "the same request" under one Idempotency-Key: the canonical hash.
import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { sha256 } from './crypto.ts';
import { exactReply, idempotencyKeyOf, requestHash, sendExact } from './idempotency.ts';

describe('requestHash', () => {
  it('is the same for the same request whatever the order of its keys, at every depth', () => {
    const a = requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana', at: '10:00' }, list: [{ x: 1, y: 2 }] });
    const b = requestHash({ list: [{ y: 2, x: 1 }], proof: { at: '10:00', name: 'Ana' }, status: 'Delivered', tid: 'SHM1' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves out properties that are undefined, as JSON does', () => {
    expect(requestHash({ tid: 'SHM1', note: undefined })).toBe(requestHash({ tid: 'SHM1' }));
  });

  it('differs when a value, a nested value, the order of a list or null against absent differs', () => {
    const base = requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2] });
    expect(requestHash({ tid: 'SHM2', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Bo' }, list: [1, 2] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [2, 1] })).not.toBe(base);
    expect(requestHash({ tid: 'SHM1', status: 'Delivered', proof: { name: 'Ana' }, list: [1, 2], note: null })).not.toBe(base);
    expect(requestHash({ a: '1' })).not.toBe(requestHash({ a: 1 }));
    expect(requestHash({ 'a,b': 1 })).not.toBe(requestHash({ a: 1, b: 1 }));
  });
});

describe('the reply on the wire', () => {
  it('exactReply is the status and the JSON text of the envelope', () => {
    expect(exactReply(201, { code: 201, status: 'success', message: 'ok', payload: { n: 1 } } as never)).toEqual({
      statusCode: 201,
      text: '{"code":201,"status":"success","message":"ok","payload":{"n":1}}',
    });
  });

  it('sendExact sends the text as it is, as JSON, with its status', async () => {
    const app = Fastify();
    app.get('/', (_req, reply) => sendExact(reply, { statusCode: 202, text: '{"b":1,  "a":2}' }));
    try {
      const res = await app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(202);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.payload).toBe('{"b":1,  "a":2}');
    } finally {
      await app.close();
    }
  });

  it('idempotencyKeyOf reads the header, and an empty or absent one is no key', () => {
    const req = (headers: Record<string, unknown>) => ({ headers }) as unknown as FastifyRequest;
    expect(idempotencyKeyOf(req({ 'idempotency-key': 'abc' }))).toBe('abc');
    expect(idempotencyKeyOf(req({ 'idempotency-key': '' }))).toBeUndefined();
    expect(idempotencyKeyOf(req({}))).toBeUndefined();
    expect(idempotencyKeyOf(req({ 'idempotency-key': ['a', 'b'] }))).toBeUndefined();
  });
});

describe('requestHash, exactly', () => {
  it('is the SHA-256 of the canonical JSON: keys sorted at every depth, undefined left out, lists kept in order', () => {
    const canonical = '{"a":true,"b":[3,{"c":"x","d":null}],"e":{"f":1,"g":"2"},"z":0}';
    expect(requestHash({ z: 0, e: { g: '2', f: 1 }, b: [3, { d: null, c: 'x' }], u: undefined, a: true })).toBe(sha256(canonical));
    expect(requestHash({ d: 4, c: 3, b: 2, a: 1 })).toBe(sha256('{"a":1,"b":2,"c":3,"d":4}'));
    expect(requestHash(undefined)).toBe(sha256('null'));
    expect(requestHash([])).toBe(sha256('[]'));
    expect(requestHash({})).toBe(sha256('{}'));
    expect(requestHash('a"b')).toBe(sha256('"a\\"b"'));
  });
});
