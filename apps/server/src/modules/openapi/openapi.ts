import { z } from 'zod';
import { API_DESCRIPTION, API_TOKEN_HEADER, HTTP_STATUS_HEADER, endpoints, type EndpointDef } from '@shiptrail/contract';

const toSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;

const envelope = (payload: Record<string, unknown>) => ({
  type: 'object',
  required: ['code', 'status', 'message', 'payload'],
  properties: {
    code: {
      type: 'integer',
      description: `The result (200, 201, 400, 401, ...); the HTTP status is 200 unless the request sends ${HTTP_STATUS_HEADER}: real`,
    },
    status: { type: 'string', enum: ['success', 'fail'] },
    message: { type: 'string' },
    payload,
  },
});

function operation(e: EndpointDef) {
  const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = e.query
    ? Object.entries((toSchema(e.query, 'input').properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        schema,
      }))
    : [];
  return {
    summary: e.summary,
    tags: [e.tag],
    operationId: `${e.method.toLowerCase()}${e.path
      .replace(/[{}]/g, '')
      .replace(/\/(\w)/g, (_, c: string) => c.toUpperCase())
      .replace(/\W/g, '')}`,
    ...(e.auth ? { security: [{ apiToken: [] }] } : { security: [] }),
    ...(params.length + query.length ? { parameters: [...params, ...query] } : {}),
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(e.body, 'input') } } } } : {}),
    responses: {
      '200': {
        description: 'Success',
        content: { 'application/json': { schema: envelope(e.response ? toSchema(e.response, 'output') : { nullable: true }) } },
      },
      default: {
        description:
          'Failure: the envelope with status "fail", the result in code, a message, and for validation errors payload.errors by field (HTTP 200 unless the request asks for real statuses)',
        content: { 'application/json': { schema: envelope({ nullable: true }) } },
      },
    },
  };
}

/** OpenAPI 3.0 document generated from the contract's endpoint list (ARCHITECTURE §4). */
export function buildOpenApi(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) (paths[e.path] ??= {})[e.method.toLowerCase()] = operation(e);
  return {
    openapi: '3.0.3',
    info: {
      title: 'Shiptrail API',
      version: '1.0.0',
      description: API_DESCRIPTION,
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: API_TOKEN_HEADER } } },
    paths,
  };
}
