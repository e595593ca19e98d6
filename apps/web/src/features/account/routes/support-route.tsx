import { Anchor, Grid, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { LIMITS, supportRequest } from '@shiptrail/contract';
import { Link } from 'react-router';
import { useSupportRequest } from '../api/support-request';
import { SendFormPanel } from '../components/send-form-panel';
import { PageHeader } from '../../../components/page-header';
import { zodResolver } from '../../../lib/zod-resolver';

// The contract's own limit, so the counter and the server agree.
const MAX = supportRequest.shape.message.maxLength ?? 5000;

export default function SupportRoute() {
  const form = useForm({
    mode: 'controlled',
    initialValues: { message: '' },
    validate: zodResolver(supportRequest),
    validateInputOnBlur: true,
  });
  const send = useSupportRequest();
  const length = form.values.message.trim().length;
  const over = length > MAX;
  // Send is disabled while the message is too long, so say why at once rather than on blur.
  const messageInput = form.getInputProps('message');
  const error = over
    ? `Must be at most ${MAX.toLocaleString('en-US')} characters: remove ${(length - MAX).toLocaleString('en-US')}`
    : messageInput.error;
  return (
    <>
      <PageHeader title="Support" description="We usually reply within a few hours on business days." />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <SendFormPanel label="Support request" form={form} sending={send} submit="Send message">
            <Textarea
              label="Message"
              placeholder="Tell us what you need help with. Tracking numbers help us answer faster."
              rows={LIMITS.supportRows}
              required
              {...messageInput}
              error={error}
              description={
                <span data-testid="support-counter">
                  {length.toLocaleString('en-US')} / {MAX.toLocaleString('en-US')} characters
                </span>
              }
              inputWrapperOrder={['label', 'input', 'description', 'error']}
            />
          </SendFormPanel>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <BeforeYouWrite />
        </Grid.Col>
      </Grid>
    </>
  );
}

/** Where an answer may already be: the API documentation and the webhook delivery log. */
function BeforeYouWrite() {
  return (
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
  );
}
