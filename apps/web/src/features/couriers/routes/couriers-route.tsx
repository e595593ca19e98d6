import { Badge, Box, Button, Center, Group, Loader, Paper, Table, Text } from '@mantine/core';
import { IconEdit, IconMailPlus, IconMap, IconPlus, IconTrash, IconTruck } from '@tabler/icons-react';
import type { MemberView } from '@shiptrail/contract';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ActionButton } from '../../../components/action-button';
import { CardItem, CardList } from '../../../components/card-list';
import { EmptyList } from '../../../components/empty-list';
import { TableHead } from '../../../components/table-head';
import { ConfirmDeleteModal } from '../../../components/confirm-delete-modal';
import { PageHeader } from '../../../components/page-header';
import { useCardLayout } from '../../../components/card-layout';
import { formatDateTime } from '../../../lib/format';
import { memberName, useMembers } from '../../../lib/members';
import { useDeleteMember } from '../api/members';
import { PendingInvitations } from '../components/pending-invitations';

// The role is a word, never cut to "COURI…": the badge keeps its width however the table squeezes the column.
const ROLE_BADGE = { root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } } as const;

const CourierModal = lazy(() => import('../components/courier-modal').then((m) => ({ default: m.CourierModal })));
const InviteModal = lazy(() => import('../components/invite-modal').then((m) => ({ default: m.InviteModal })));

function RowButtons({ m, onEdit, onDelete }: { m: MemberView; onEdit: (m: MemberView) => void; onDelete: (m: MemberView) => void }) {
  return (
    <Group gap={6} wrap="nowrap">
      <ActionButton icon={IconEdit} onClick={() => onEdit(m)} aria-label={`Edit ${m.email}`}>
        Edit
      </ActionButton>
      <ActionButton icon={IconTrash} color="red" onClick={() => onDelete(m)} aria-label={`Delete ${m.email}`}>
        Delete
      </ActionButton>
    </Group>
  );
}

function CouriersHeader({ onAdd, onInvite }: { onAdd: () => void; onInvite: () => void }) {
  return (
    <PageHeader
      title="Couriers"
      description="The people who deliver your shipments. Invite them by email: they choose their own password and sign in from their phone."
      actions={
        <Group gap="xs">
          <Button component={Link} to="/account/couriers/map" variant="default" leftSection={<IconMap size={16} />}>
            Map
          </Button>
          {/* The old way, for owners who hand the password over themselves: the account stays unverified until the
            courier confirms the address (docs/decisions/097-owner-made-courier-accounts.md). */}
          <Button variant="default" leftSection={<IconPlus size={16} />} onClick={onAdd}>
            Add New Courier
          </Button>
          <Button leftSection={<IconMailPlus size={16} />} onClick={onInvite}>
            Invite courier
          </Button>
        </Group>
      }
    />
  );
}

/** The company's couriers, each with its Edit and Delete buttons. */
interface CourierRows {
  list: MemberView[];
  onEdit: (m: MemberView) => void;
  onDelete: (m: MemberView) => void;
}

/** The couriers as cards, on a phone. */
function CourierCards({ list, onEdit, onDelete }: CourierRows) {
  return (
    <CardList label="Couriers" testId="couriers-cards">
      {list.map((m) => (
        <CardItem key={m.uid} rule="bottom" data-email={m.email}>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <div style={{ minWidth: 0 }}>
              <Text fw={600} size="sm">
                {memberName(m)}
              </Text>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {m.email}
              </Text>
              <Text size="sm" c="dimmed">
                {m.phone} · updated {formatDateTime(m.updatedAt)}
              </Text>
            </div>
            <Badge variant="light" styles={ROLE_BADGE} data-testid="role-badge">
              {m.role}
            </Badge>
          </Group>
          <Box mt="xs">
            <RowButtons m={m} onEdit={onEdit} onDelete={onDelete} />
          </Box>
        </CardItem>
      ))}
    </CardList>
  );
}

/** The couriers as a table, at a desk. */
function CourierTable({ list, onEdit, onDelete }: CourierRows) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table highlightOnHover verticalSpacing="sm" aria-label="Couriers" data-testid="couriers-table">
        <TableHead columns={['Email', 'Role', 'First name', 'Last name', 'Phone', 'Updated']} actionsWidth={190} />
        <Table.Tbody>
          {list.map((m) => (
            <Table.Tr key={m.uid} data-email={m.email}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{m.email}</Table.Td>
              <Table.Td>
                <Badge variant="light" styles={ROLE_BADGE} data-testid="role-badge">
                  {m.role}
                </Badge>
              </Table.Td>
              <Table.Td>{m.firstName}</Table.Td>
              <Table.Td>{m.lastName}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{m.phone}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(m.updatedAt)}</Table.Td>
              <Table.Td>
                <RowButtons m={m} onEdit={onEdit} onDelete={onDelete} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** "Delete courier?": they can no longer sign in; their shipments stay, without a courier. */
function ConfirmDelete({
  member: deleting,
  ...props
}: {
  member: MemberView | null;
  busy: boolean;
  onCancel: () => void;
  onDelete: (m: MemberView) => void;
}) {
  return (
    <ConfirmDeleteModal item={deleting} title="Delete courier?" {...props}>
      <Text size="sm" mb="xs">
        <b>{deleting ? memberName(deleting) : ''}</b> ({deleting?.email}) will no longer be able to sign in.
      </Text>
      <Text size="sm" c="dimmed" mb="lg">
        Their shipments stay with you, without a courier: assign them to someone else.
      </Text>
    </ConfirmDeleteModal>
  );
}

export default function CouriersRoute() {
  const [search, setSearch] = useSearchParams();
  const members = useMembers();
  const list = members.data ?? [];
  const cards = useCardLayout();
  const [adding, setAdding] = useState(false);
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState<MemberView | null>(null);
  const [deleting, setDeleting] = useState<MemberView | null>(null);
  const remove = useDeleteMember();

  // The shipment form links here with ?add=1 when there is no courier to choose yet: inviting is the main way.
  useEffect(() => {
    if (search.get('add') === '1') {
      setInviting(true);
      search.delete('add');
      setSearch(search, { replace: true });
    }
  }, [search, setSearch]);

  return (
    <>
      <CouriersHeader onAdd={() => setAdding(true)} onInvite={() => setInviting(true)} />
      <Paper mih={200} pos="relative">
        {members.isLoading ? (
          <Center py={64}>
            <Loader aria-label="Loading couriers" />
          </Center>
        ) : list.length === 0 ? (
          <EmptyList
            icon={<IconTruck size={30} />}
            title="No couriers yet"
            text="Invite a courier, then assign shipments to them. They update each one from their phone."
          />
        ) : cards ? (
          <CourierCards list={list} onEdit={setEditing} onDelete={setDeleting} />
        ) : (
          <CourierTable list={list} onEdit={setEditing} onDelete={setDeleting} />
        )}
      </Paper>
      <PendingInvitations cards={cards} />
      <Suspense>
        {inviting && (
          <InviteModal
            onClose={() => setInviting(false)}
            onAddWithPassword={() => {
              setInviting(false);
              setAdding(true);
            }}
          />
        )}
        {adding && <CourierModal onClose={() => setAdding(false)} />}
        {editing && <CourierModal key={editing.uid} member={editing} onClose={() => setEditing(null)} />}
      </Suspense>
      <ConfirmDelete
        member={deleting}
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onDelete={(m) => remove.mutate({ uid: m.uid }, { onSettled: () => setDeleting(null) })}
      />
    </>
  );
}
