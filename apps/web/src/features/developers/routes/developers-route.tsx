import { Accordion, Alert, Anchor, Badge, Box, Code, Container, Grid, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { API_TOKEN_HEADER, HTTP_STATUS_HEADER, HTTP_STATUS_REAL } from '@shiptrail/contract';
import { IconKey } from '@tabler/icons-react';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useOpenApi, type OpenApiDoc, type OpenApiOperation } from '../api/get-openapi';
import { SchemaFields } from '../components/schema-fields';
import { CodeBlock } from '../components/code-block';

const METHOD_COLORS: Record<string, string> = { get: 'blue', post: 'teal', put: 'orange', delete: 'red', patch: 'grape' };

const EXAMPLE_BODY = {
  tid: '1Z5R89390350075608', // moves on the carrier sandbox (docs/carriers.md)
  title: 'Blue running shoes',
  courier: 'ups',
  orderId: 'ORD-1042',
  customer: 'Jane Cooper',
  notify: { email: 'jane@example.com', phone: '(212) 555-0142' },
  note: 'Leave at the front desk',
};

interface Op {
  method: string;
  path: string;
  op: OpenApiOperation;
}

function groupByTag(doc: OpenApiDoc | undefined): [string, Op[]][] {
  const groups = new Map<string, Op[]>();
  for (const [path, methods] of Object.entries(doc?.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      if (!METHOD_COLORS[method]) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, op });
    }
  }
  return [...groups.entries()];
}

function Endpoint({ item, doc }: { item: Op; doc: OpenApiDoc }) {
  const schema = item.op.requestBody?.content?.['application/json']?.schema;
  const params = item.op.parameters ?? [];
  const auth = item.op.security === undefined ? null : item.op.security.length > 0;
  return (
    <Accordion.Item value={`${item.method} ${item.path}`}>
      <Accordion.Control>
        <Group gap="sm" wrap="nowrap">
          <Badge color={METHOD_COLORS[item.method]} variant="filled" w={78} radius="sm" styles={{ label: { overflow: 'visible' } }}>
            {item.method.toUpperCase()}
          </Badge>
          <Box style={{ minWidth: 0 }}>
            <Text ff="monospace" size="sm" fw={600} style={{ wordBreak: 'break-all' }}>
              {item.path}
            </Text>
            <Text size="xs" c="dimmed">
              {item.op.summary}
            </Text>
          </Box>
        </Group>
      </Accordion.Control>
      <Accordion.Panel>
        <Stack gap="sm">
          {item.op.description && <Text size="sm">{item.op.description}</Text>}
          {auth !== null && (
            <Text size="sm" c="dimmed">
              {auth ? (
                <>
                  Requires the <Code>{API_TOKEN_HEADER}</Code> header.
                </>
              ) : (
                'No authentication.'
              )}
            </Text>
          )}
          {params.length > 0 && (
            <div>
              <Text size="sm" fw={600} mb={4}>
                Parameters
              </Text>
              <Stack gap={2}>
                {params.map((p) => (
                  <Text key={`${p.in}-${p.name}`} size="sm">
                    <Code>{p.name}</Code>{' '}
                    <Text span size="xs" c="dimmed">
                      ({p.in}
                      {p.required ? ', required' : ''})
                    </Text>
                  </Text>
                ))}
              </Stack>
            </div>
          )}
          {schema && (
            <div>
              <Text size="sm" fw={600} mb={4}>
                Request body
              </Text>
              <SchemaFields schema={schema} doc={doc} />
            </div>
          )}
          {!schema && params.length === 0 && (
            <Text size="sm" c="dimmed">
              No request body.
            </Text>
          )}
        </Stack>
      </Accordion.Panel>
    </Accordion.Item>
  );
}

/** How a request is authorised, and what its reply's envelope and status mean. */
function Authentication() {
  return (
    <Paper p="lg" h="100%">
      <Group gap="sm" mb="sm">
        <IconKey size={22} />
        <Title order={2} fz="lg">
          Authentication
        </Title>
      </Group>
      <Text size="sm" mb="sm">
        Send your API key in the <Code>{API_TOKEN_HEADER}</Code> header of every request. You find it under{' '}
        <Anchor component={Link} to="/account/profile/settings/apiKey">
          Account settings → API key
        </Anchor>
        , where you can copy it or regenerate it. Regenerating invalidates the old key immediately.
      </Text>
      <Text size="sm" c="dimmed">
        Every reply comes with HTTP status <Code>200</Code>; the result is in the envelope&apos;s <Code>code</Code> and <Code>status</Code>.
        A request without a valid key gets <Code>code: 401</Code> with <Code>status: "fail"</Code>; validation errors get{' '}
        <Code>code: 400</Code> with <Code>payload.errors</Code> listing each field and its message. Send{' '}
        <Code>{`${HTTP_STATUS_HEADER}: ${HTTP_STATUS_REAL}`}</Code> to get the real HTTP status code too. In request bodies{' '}
        <Code>null</Code> means &quot;not given&quot;.
      </Text>
    </Paper>
  );
}

export default function DevelopersRoute() {
  const { data, isLoading, isError, error } = useOpenApi();
  const groups = useMemo(() => groupByTag(data), [data]);
  const origin = typeof window === 'undefined' ? 'https://shiptrail.app' : window.location.origin;
  const curl = `curl -X POST ${origin}/v1/trackings/add \\
  -H "${API_TOKEN_HEADER}: YOUR_API_KEY" \\
  -H "content-type: application/json" \\
  -d '${JSON.stringify(EXAMPLE_BODY, null, 2)}'`;
  const reply = JSON.stringify({ code: 201, status: 'success', message: 'Tracking added', payload: { tid: EXAMPLE_BODY.tid } }, null, 2);

  return (
    <Container size="lg" py={{ base: 40, md: 72 }}>
      <Stack gap="xs" mb="xl">
        <Text tt="uppercase" fw={700} c="var(--mantine-primary-color-filled)" size="sm">
          Developers
        </Text>
        <Title order={1} fz={{ base: 32, sm: 40 }}>
          Shiptrail REST API
        </Title>
        <Text c="dimmed" size="lg" maw={720}>
          Add tracking numbers, read their status and checkpoints, and manage alerts from your own code. Every response is JSON with the
          same envelope: <Code>{'{ code, status, message, payload }'}</Code>.
        </Text>
      </Stack>

      <Grid gap="xl" mb={48}>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Authentication />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="sm">
            <Title order={2} fz="lg">
              Add a tracking
            </Title>
            <CodeBlock code={curl} label="curl example" />
            <Text size="sm" c="dimmed">
              Leave <Code>courier</Code> out (or null) and Shiptrail detects the carrier from the number. The reply:
            </Text>
            <CodeBlock code={reply} label="example reply" />
          </Stack>
        </Grid.Col>
      </Grid>

      <Title order={2} mb="md">
        Reference
      </Title>
      {isLoading && (
        <Group>
          <Loader size="sm" /> <Text c="dimmed">Loading the API description…</Text>
        </Group>
      )}
      {isError && <Alert color="red">{(error as Error).message}</Alert>}
      {data && (
        <Stack gap="xl">
          {groups.map(([tag, ops]) => (
            <section key={tag} aria-labelledby={`tag-${tag}`}>
              <Title order={3} id={`tag-${tag}`} fz="lg" mb="sm">
                {tag}{' '}
                <Text span c="dimmed" fz="sm">
                  {ops.length} {ops.length === 1 ? 'call' : 'calls'}
                </Text>
              </Title>
              <Accordion variant="separated" radius="md" multiple>
                {ops.map((o) => (
                  <Endpoint key={`${o.method} ${o.path}`} item={o} doc={data} />
                ))}
              </Accordion>
            </section>
          ))}
        </Stack>
      )}
    </Container>
  );
}
