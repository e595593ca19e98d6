import { Anchor, Button, Grid, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { LIMITS, supportRequest } from '@shiptrail/contract';
import { IconSend } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSupportRequest } from '../api/support-request';
import { PageHeader } from '../../../components/page-header';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors } from '../../../lib/notify';

export default function SupportRoute() {
  const form = useForm({ mode: 'controlled', initialValues: { message: '' }, validate: zodResolver(supportRequest), validateInputOnBlur: true });
  const send = useSupportRequest();
  return (
    <>
      <PageHeader title="Support" description="We usually reply within a few hours on business days." />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper p="lg">
            <form
              noValidate
              aria-label="Support request"
              onSubmit={form.onSubmit((v) => send.mutate(v, { onSuccess: () => form.reset(), onError: (e) => applyServerErrors(form, e) }))}
            >
              <Stack>
                <Textarea label="Message" placeholder="Tell us what you need help with. Tracking numbers help us answer faster." rows={LIMITS.supportRows} required {...form.getInputProps('message')} />
                <Group>
                  <Button type="submit" leftSection={<IconSend size={16} />} loading={send.isPending} disabled={!form.isValid() || send.isPending}>
                    Send message
                  </Button>
                </Group>
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper p="lg">
            <Title order={2} fz="md" mb="xs">
              Before you write
            </Title>
            <Stack gap={6}>
              <Text size="sm">
                <Anchor component={Link} to="/developers">
                  API documentation
                </Anchor>{' '}
                covers every call and field.
              </Text>
              <Text size="sm">
                Webhook problems? The{' '}
                <Anchor component={Link} to="/account/notifications">
                  delivery log
                </Anchor>{' '}
                shows every attempt and lets you resend.
              </Text>
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
    </>
  );
}
