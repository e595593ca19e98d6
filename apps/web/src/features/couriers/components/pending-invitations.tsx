import { Badge, Box, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconMailForward, IconX } from '@tabler/icons-react';
import type { InvitationState, InvitationView } from '@shiptrail/contract';
import { formatDateTime } from '../../../lib/format';
import { useInvitations, useResendInvitation, useRevokeInvitation } from '../api/invitations';

const STATE: Record<InvitationState, { label: string; color: string }> = {
  pending: { label: 'Waiting', color: 'blue' },
  expired: { label: 'Expired', color: 'orange' },
  accepted: { label: 'Accepted', color: 'teal' },
  revoked: { label: 'Revoked', color: 'gray' },
  declined: { label: 'Declined', color: 'red' },
};
const name = (i: InvitationView) => `${i.firstName} ${i.lastName}`.trim() || i.email;

function Actions({ i }: { i: InvitationView }) {
  const resend = useResendInvitation();
  const revoke = useRevokeInvitation();
  if (i.state !== 'pending' && i.state !== 'expired') return null;
  return (
    <Group gap={6} wrap="nowrap">
      <Button
        size="xs"
        variant="light"
        leftSection={<IconMailForward size={14} />}
        loading={resend.isPending}
        onClick={() => resend.mutate(i.id)}
        aria-label={`Resend the invitation to ${i.email}`}
      >
        Resend
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        leftSection={<IconX size={14} />}
        loading={revoke.isPending}
        onClick={() => revoke.mutate(i.id)}
        aria-label={`Revoke the invitation to ${i.email}`}
      >
        Revoke
      </Button>
    </Group>
  );
}

/**
 * The company's invitations that still need something: waiting or expired ones first, then the last few
 * settled ones, so the owner sees that an invitation was accepted or revoked.
 */
export function PendingInvitations({ cards }: { cards: boolean }) {
  const q = useInvitations();
  const all = q.data ?? [];
  const open = all.filter((i) => i.state === 'pending' || i.state === 'expired');
  const recent = all.filter((i) => i.state !== 'pending' && i.state !== 'expired').slice(0, 5);
  const list = [...open, ...recent];
  if (list.length === 0) return null;
  return (
    <Paper mt="lg" aria-label="Invitations" component="section">
      <Box px="md" pt="md" pb="xs">
        <Title order={2} fz="lg">
          Invitations
        </Title>
        <Text size="sm" c="dimmed">
          {open.length === 0 ? 'No invitation is waiting.' : `${open.length} waiting for the courier to choose a password.`} Resend gives a
          new link and the old one stops working.
        </Text>
      </Box>
      {cards ? <InvitationCards list={list} /> : <InvitationTable list={list} />}
    </Paper>
  );
}

/** The invitations as cards, on a phone. */
function InvitationCards({ list }: { list: InvitationView[] }) {
  return (
    <Stack component="ul" gap={0} m={0} p={0} data-testid="invitations-cards" style={{ listStyle: 'none' }}>
      {list.map((i) => (
        <Box
          component="li"
          key={i.id}
          px="md"
          py="sm"
          data-email={i.email}
          style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
        >
          <Group justify="space-between" wrap="nowrap" align="center" gap="xs">
            <Text fw={600} size="sm">
              {name(i)}
            </Text>
            <Badge variant="light" color={STATE[i.state].color} style={{ flexShrink: 0 }}>
              {STATE[i.state].label}
            </Badge>
          </Group>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {i.email}
          </Text>
          <Text size="sm" c="dimmed">
            Sent {formatDateTime(i.sentAt)} · {i.state === 'expired' ? 'expired' : 'expires'} {formatDateTime(i.expiresAt)}
          </Text>
          <Box mt="xs">
            <Actions i={i} />
          </Box>
        </Box>
      ))}
    </Stack>
  );
}

/** The invitations as a table, at a desk. */
function InvitationTable({ list }: { list: InvitationView[] }) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table verticalSpacing="sm" data-testid="invitations-table" aria-label="Invitations">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Sent</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th w={200}>
              <span style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}>Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((i) => (
            <Table.Tr key={i.id} data-email={i.email}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{i.email}</Table.Td>
              <Table.Td>{name(i)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(i.sentAt)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(i.expiresAt)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {/* Plain text, not a Badge: a badge clips its label when the table narrows the column. */}
                <Text size="sm" fw={600} c={`${STATE[i.state].color}.7`}>
                  {STATE[i.state].label}
                </Text>
              </Table.Td>
              <Table.Td>
                <Actions i={i} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
