import { Grid, Group, Paper, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { inviteRequest } from '@shiptrail/contract';
import { IconGift } from '@tabler/icons-react';
import { useInviteFriend } from '../api/invite-friend';
import { SendFormPanel } from '../components/send-form-panel';
import { PageHeader } from '../../../components/page-header';
import { zodResolver } from '../../../lib/zod-resolver';

export default function InviteRoute() {
  const form = useForm({
    mode: 'controlled',
    initialValues: { email: '' },
    validate: zodResolver(inviteRequest),
    validateInputOnBlur: true,
  });
  const invite = useInviteFriend();
  return (
    <>
      <PageHeader title="Invite a friend" description="Share Shiptrail and earn credit." />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <SendFormPanel label="Invite a friend" form={form} sending={invite} submit="Send Invite">
            <TextInput label="Email" type="email" placeholder="friend@example.com" required {...form.getInputProps('email')} />
          </SendFormPanel>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Paper p="lg" bg="var(--mantine-primary-color-light)">
            <Group wrap="nowrap" align="flex-start">
              <ThemeIcon size={44} radius="md">
                <IconGift size={24} />
              </ThemeIcon>
              <div>
                <Title order={2} fz="lg">
                  $10 for every friend
                </Title>
                <Text size="sm" mt={4}>
                  Your friend gets $10 of free credit to start. When they make their first payment, we add $10 to your balance.
                </Text>
              </div>
            </Group>
          </Paper>
        </Grid.Col>
      </Grid>
    </>
  );
}
