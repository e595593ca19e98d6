import { queryOptions, useQuery } from '@tanstack/react-query';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  description?: string;
  format?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDoc {
  openapi?: string;
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

// Not a /v1 envelope: the OpenAPI document is served as is.
export async function getOpenApi(): Promise<OpenApiDoc> {
  const res = await fetch('/v1/openapi.json', { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`The API description is not available (${res.status})`);
  const body = (await res.json()) as OpenApiDoc & { payload?: OpenApiDoc };
  return body.paths ? body : (body.payload ?? body);
}

export const openApiQueryOptions = () => queryOptions({ queryKey: ['openapi'], queryFn: getOpenApi, staleTime: 10 * 60_000 });

export const useOpenApi = () => useQuery(openApiQueryOptions());
