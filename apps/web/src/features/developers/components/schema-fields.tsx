import { Badge, Code, Group, Stack, Table, Text } from '@mantine/core';
import type { JsonSchema, OpenApiDoc } from '../api/get-openapi';

function resolve(schema: JsonSchema | undefined, doc: OpenApiDoc, depth = 0): JsonSchema | undefined {
  if (!schema || depth > 8) return schema;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    return resolve(doc.components?.schemas?.[name], doc, depth + 1);
  }
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((s) => resolve(s, doc, depth + 1) ?? {});
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      required: parts.flatMap((p) => p.required ?? []),
    };
  }
  return schema;
}

export function typeOf(schema: JsonSchema | undefined, doc: OpenApiDoc): string {
  const s = resolve(schema, doc);
  if (!s) return 'any';
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return [...new Set(alts.map((a) => typeOf(a, doc)))].join(' | ');
  const t = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (t === 'array') return `${typeOf(s.items, doc)}[]`;
  if (s.format) return `${t} (${s.format})`;
  return t ?? 'object';
}

interface Row {
  name: string;
  type: string;
  required: boolean;
  note?: string;
}

function rows(schema: JsonSchema, doc: OpenApiDoc, prefix = '', depth = 0): Row[] {
  const s = resolve(schema, doc);
  if (!s?.properties) return [];
  const out: Row[] = [];
  for (const [name, raw] of Object.entries(s.properties)) {
    const p = resolve(raw, doc) ?? {};
    const full = prefix ? `${prefix}.${name}` : name;
    const nested = p.properties && depth < 3;
    out.push({
      name: full,
      type: nested ? 'object' : typeOf(p, doc),
      required: s.required?.includes(name) ?? false,
      note: p.description ?? (p.default !== undefined ? `default ${JSON.stringify(p.default)}` : undefined),
    });
    if (nested) out.push(...rows(p, doc, full, depth + 1));
  }
  return out;
}

function FieldTable({ schema, doc }: { schema: JsonSchema; doc: OpenApiDoc }) {
  const list = rows(schema, doc);
  if (!list.length)
    return (
      <Text size="sm" c="dimmed">
        {typeOf(schema, doc)}
      </Text>
    );
  return (
    <Table.ScrollContainer minWidth={420}>
      <Table striped withTableBorder fz="sm" verticalSpacing={6}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Field</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Notes</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((r) => (
            <Table.Tr key={r.name}>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Code>{r.name}</Code>
                  {r.required && (
                    <Badge size="xs" color="red" variant="light">
                      required
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="xs" ff="monospace" c="dimmed" style={{ wordBreak: 'break-word' }}>
                  {r.type}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {r.note}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Request body fields from the JSON schema; a union (the login call) shows each alternative. */
export function SchemaFields({ schema, doc }: { schema: JsonSchema; doc: OpenApiDoc }) {
  const s = resolve(schema, doc) ?? {};
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.length > 1) {
    return (
      <Stack gap="sm">
        {alts.map((a, i) => (
          <div key={i}>
            <Text size="xs" fw={600} c="dimmed" mb={4}>
              Option {i + 1}
            </Text>
            <FieldTable schema={a} doc={doc} />
          </div>
        ))}
      </Stack>
    );
  }
  return <FieldTable schema={s} doc={doc} />;
}
