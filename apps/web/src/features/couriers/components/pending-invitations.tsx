import { Badge, Box, Group, Paper, Table, Text, Title } from '@mantine/core';
import { IconMailForward, IconX } from '@tabler/icons-react';
import type { InvitationState, InvitationView } from '@shiptrail/contract';
import { ActionButton } from '../../../components/action-button';
import { CardItem, CardList } from '../../../components/card-list';
import { TableHead } from '../../../components/table-head';
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
      <ActionButton
        icon={IconMailForward}
        loading={resend.isPending}
        onClick={() => resend.mutate(i.id)}
        aria-label={`Resend the invitation to ${i.email}`}
      >
        Resend
      </ActionButton>
      <ActionButton
        icon={IconX}
        color="red"
        loading={revoke.isPending}
        onClick={() => revoke.mutate(i.id)}
        aria-label={`Revoke the invitation to ${i.email}`}
      >
        Revoke
      </ActionButton>
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
    <CardList testId="invitations-cards">
      {list.map((i) => (
        <CardItem key={i.id} rule="top" data-email={i.email}>
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
        </CardItem>
      ))}
    </CardList>
  );
}

/** The invitations as a table, at a desk. */
function InvitationTable({ list }: { list: InvitationView[] }) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table verticalSpacing="sm" data-testid="invitations-table" aria-label="Invitations">
        <TableHead columns={['Email', 'Name', 'Sent', 'Expires', 'State']} actionsWidth={200} />
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
