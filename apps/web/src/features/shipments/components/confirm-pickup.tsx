import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ShipmentView } from '@shiptrail/contract';
import { IconPackageImport } from '@tabler/icons-react';
import { useState } from 'react';
import { toastSuccess } from '../../../lib/notify';
import { useUserInfo } from '../../../lib/user-info';
import { useInvalidateShipments } from '../api/mutations';
import { confirmPickup } from '../api/pickup';

export const PICKUP_KEPT = 'No signal: the pickup is kept on this phone and sent by itself when you are back online.';

/**
 * A scanned label whose shipment has not been picked up yet (decision 138): one tap confirms the pickup (an In
 * Transit checkpoint at the origin, with the time it happened, through the phone's outbox); or any other update.
 */
export function ConfirmPickup({ shipment, onClose, onOther }: { shipment: ShipmentView; onClose: () => void; onOther: () => void }) {
  const { data: info } = useUserInfo();
  const invalidate = useInvalidateShipments();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const o = shipment.origin;
  const from = [o.name, o.address1, o.address2, o.city].filter(Boolean).join(', ');
  const confirm = async () => {
    const account = info?.profile.uid;
    if (!account) return;
    setBusy(true);
    setProblem(null);
    try {
      if ((await confirmPickup(account, shipment)) === 'sent') {
        toastSuccess(`${shipment.tid} is on its way with you.`, 'Pickup confirmed');
        invalidate();
      } else toastSuccess(PICKUP_KEPT, 'Pickup saved on this phone');
      onClose();
    } catch (e) {
      setProblem((e as Error).message || 'Could not save this on the phone. Please try again.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title="Not picked up yet" centered>
      <Stack gap="sm" data-testid="confirm-pickup">
        <Text size="sm">
          <Text span ff="monospace" fw={700}>
            {shipment.tid}
          </Text>{' '}
          for {shipment.destination.name || 'the recipient'}, {shipment.destination.city}
        </Text>
        {from && (
          <Text size="sm" c="dimmed">
            Pick up at {from}
          </Text>
        )}
        {problem && (
          <Alert color="red" role="alert" data-testid="pickup-problem">
            {problem}
          </Alert>
        )}
        <Button size="md" loading={busy} onClick={() => void confirm()} leftSection={<IconPackageImport size={18} />}>
          Confirm pickup
        </Button>
        <Group justify="space-between">
          <Button variant="default" onClick={onOther}>
            Another update
          </Button>
          <Button variant="subtle" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
