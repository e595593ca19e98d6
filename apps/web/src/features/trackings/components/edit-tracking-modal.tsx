import { Alert, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertTriangle } from '@tabler/icons-react';
import { updateTrackingForm } from '../api/update-tracking-schema';
import { editValuesOf, updateBodyOf, useUpdateTracking, type EditTrackingValues } from '../api/update-tracking';
import { useCouriers } from '../api/get-couriers';
import type { TrackingView } from '@shiptrail/contract';
import { TrackingDetailsFields } from './tracking-details-fields';
import { CourierSelect } from './courier-select';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors, errorsBelongTo, toastSuccess } from '../../../lib/notify';
import { courierName } from '../../../lib/format';

/** Edits a tracking's courier and details; the tracking number itself is fixed (shown read-only). */
/** The form's fields as the server names them in payload.errors: those errors show under their fields only. */
const EDIT_FIELDS = ['courier', 'title', 'orderId', 'customer', 'notify.email', 'notify.phone', 'note'] as const;

export function EditTrackingModal({ tracking, onClose }: { tracking: TrackingView; onClose: () => void }) {
  const { couriers } = useCouriers();
  const form = useForm<EditTrackingValues>({
    mode: 'controlled',
    initialValues: editValuesOf(tracking),
    validate: zodResolver(updateTrackingForm),
    validateInputOnBlur: true,
  });
  const update = useUpdateTracking();
  const close = () => {
    update.reset();
    onClose();
  };
  const submit = (v: EditTrackingValues) => {
    update.mutate(updateBodyOf(tracking, v), {
      onSuccess: (env) => {
        toastSuccess(env.message || 'Saved');
        close();
      },
      onError: (e) => applyServerErrors(form, e),
    });
  };
  const courierChanged = !!form.values.courier && form.values.courier !== (tracking.courier ?? '');
  const courierData = couriers.map((c) => ({ value: c.courier, label: c.name, sandbox: c.sandbox }));
  return (
    <Modal opened onClose={close} title="Edit tracking" size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Edit tracking">
        <Stack gap="md">
          {update.isError && !errorsBelongTo(update.error, EDIT_FIELDS) && (
            <Alert color="red" title="Could not save">
              {update.error.message}
            </Alert>
          )}
          <TextInput
            label="Tracking number"
            value={tracking.tid}
            readOnly
            variant="filled"
            ff="monospace"
            description="The number cannot be changed"
          />
          <div>
            <CourierSelect placeholder="Not detected yet" data={courierData} {...form.getInputProps('courier')} />
            {courierChanged && (
              <Alert mt={6} color="yellow" variant="light" icon={<IconAlertTriangle size={16} />} data-testid="courier-change-warning">
                The history will be reloaded from {courierName(form.values.courier)}: the current checkpoints are dropped and the status
                goes back to Pending.
              </Alert>
            )}
          </div>
          <TrackingDetailsFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={update.isPending} disabled={!form.isValid() || update.isPending}>
              Save changes
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
