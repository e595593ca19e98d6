import { Button, Container, Grid, Group, Paper, Stack, Text, Textarea, TextInput, ThemeIcon, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { getInTouchRequest } from '@shiptrail/contract';
import { IconClock, IconCode, IconMessageCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { getInTouch, type ContactBody } from '../api/get-in-touch';
import { StatusBox, type FormStatus } from '../../../components/status-box';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors } from '../../../lib/notify';
import { recaptchaToken, usePreloadRecaptcha } from '../../../lib/recaptcha';

const POINTS = [
  { icon: IconClock, title: 'Quick replies', text: 'We answer within one business day, usually much sooner.' },
  { icon: IconCode, title: 'Integration help', text: 'Ask about the API, webhooks or bulk imports. Engineers read every message.' },
  { icon: IconMessageCircle, title: 'Sales and volume', text: 'Tracking thousands of parcels a day? Let us talk about volume pricing.' },
];

export default function GetInTouchRoute() {
  const [status, setStatus] = useState<FormStatus | null>(null);
  usePreloadRecaptcha();
  const form = useForm({
    mode: 'controlled',
    initialValues: { name: '', email: '', phone: '', message: '' },
    validate: zodResolver(getInTouchRequest),
    validateInputOnBlur: true,
  });
  const mutation = useMutation({
    mutationFn: async (v: ContactBody) => getInTouch({ ...v, phone: v.phone || undefined, recaptcha: await recaptchaToken() }),
    onSuccess: (env) => {
      setStatus({ status: 'success', message: env.message });
      form.reset();
    },
    onError: (e) => {
      setStatus({ status: 'fail', message: e.message || 'Send error!' });
      applyServerErrors(form, e);
    },
  });
  return (
    <Container size="lg" py={{ base: 40, md: 80 }}>
      <Grid gap={{ base: 32, md: 64 }}>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="lg">
            <Title order={1} fz={{ base: 32, sm: 40 }}>
              Get in touch
            </Title>
            <Text c="dimmed" size="lg">
              Questions about tracking, pricing or the API? Send us a note and a real person will get back to you.
            </Text>
            {POINTS.map((p) => (
              <Group key={p.title} align="flex-start" wrap="nowrap">
                <ThemeIcon variant="light" size={40} radius="md">
                  <p.icon size={22} />
                </ThemeIcon>
                <div>
                  <Text fw={600}>{p.title}</Text>
                  <Text size="sm" c="dimmed">
                    {p.text}
                  </Text>
                </div>
              </Group>
            ))}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper p={{ base: 'md', sm: 'xl' }} shadow="md" radius="xl">
            <form onSubmit={form.onSubmit((v) => mutation.mutate(v))} noValidate aria-label="Contact form">
              <Stack gap="md">
                <StatusBox value={status} titles={{ success: 'Sent', fail: 'Could not send your message' }} />
                <TextInput label="Full name" autoComplete="name" required {...form.getInputProps('name')} />
                <Grid>
                  <Grid.Col span={{ base: 12, sm: 6 }}>
                    <TextInput label="Email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
                  </Grid.Col>
                  <Grid.Col span={{ base: 12, sm: 6 }}>
                    <TextInput
                      label="Phone"
                      type="tel"
                      autoComplete="tel"
                      description="Optional, US numbers"
                      {...form.getInputProps('phone')}
                    />
                  </Grid.Col>
                </Grid>
                <Textarea label="Message" required autosize minRows={5} maxRows={12} {...form.getInputProps('message')} />
                <Button type="submit" size="md" loading={mutation.isPending} disabled={!form.isValid() || mutation.isPending}>
                  Send message
                </Button>
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
      </Grid>
    </Container>
  );
}
