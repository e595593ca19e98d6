import { Alert, Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { MSG } from '@shiptrail/contract';
import { useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { couriersOf, memberName, useMembers } from '../../../lib/members';
import { useAssignShipments, useUnassignShipments } from '../api/mutations';
import { noCouriersHint } from './no-couriers-hint';

/**
 * "Assign to courier" for the selected rows: one call gives them all to the chosen courier (or takes them from
 * theirs), all or nothing; the server's refusal is shown here, in the dialog.
 */
export function AssignModal({ tids, onClose, onDone }: { tids: string[]; onClose: () => void; onDone: () => void }) {
  const members = useMembers();
  const couriers = couriersOf(members.data ?? []);
  const [email, setEmail] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const assign = useAssignShipments();
  const unassign = useUnassignShipments();
  const count = `${tids.length} ${tids.length === 1 ? 'shipment' : 'shipments'}`;
  const fail = (e: Error) => setError(e instanceof ApiError ? e.message : 'Could not assign. Please try again.');
  const done = { onSuccess: () => (onDone(), onClose()), onError: fail };

  return (
    <Modal opened onClose={onClose} title={`Assign ${count}`} aria-label={`Assign ${count}`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          if (!email) return setError(MSG.courierRequiredForAssign);
          assign.mutate({ tids, courierEmail: email }, done);
        }}
        noValidate
      >
        <Stack gap="md">
          <Select
            label="Courier"
            placeholder={couriers.length ? 'Choose a courier' : 'No couriers yet'}
            data={couriers.map((c) => ({ value: c.email, label: `${memberName(c)} (${c.email})` }))}
            value={email}
            onChange={(v) => (setEmail(v), setError(null))}
            searchable
            data-autofocus
            nothingFoundMessage="No courier with that name"
            error={error === MSG.courierRequiredForAssign ? error : undefined}
            description={noCouriersHint(couriers, members.isLoading)}
          />
          {error && error !== MSG.courierRequiredForAssign && (
            <Alert color="red" data-testid="assign-error">
              {error}
            </Alert>
          )}
          <Text size="sm" c="dimmed">
            The courier sees them in their list at once. A shipment that had another courier leaves theirs.
          </Text>
          <Group justify="space-between">
            <Button
              variant="subtle"
              color="red"
              loading={unassign.isPending}
              disabled={assign.isPending}
              onClick={() => (setError(null), unassign.mutate({ tids }, done))}
            >
              Unassign
            </Button>
            <Group gap="xs">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={assign.isPending} disabled={unassign.isPending}>
                Assign {count}
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
