import { Alert, Button, Collapse, Group, Loader, Modal, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { IconChevronDown, IconChevronRight, IconSparkles } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { addTrackingForm } from '../api/add-tracking-schema';
import { useAddTracking } from '../api/add-tracking';
import type { EditTrackingValues } from '../api/update-tracking';
import { useDetectCourier } from '../api/detect-courier';
import { useCouriers } from '../api/get-couriers';
import { TrackingDetailsFields } from './tracking-details-fields';
import { CourierSelect } from './courier-select';
import { SandboxNumbers } from './sandbox-numbers';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors, errorsBelongTo, toastSuccess } from '../../../lib/notify';

const AUTO = 'auto';

/** The number, and what the edit form holds too. */
interface Values extends EditTrackingValues {
  tid: string;
}

/** The form's fields as the server names them in payload.errors. */
const FIELDS = ['tid', 'courier', 'title', 'orderId', 'customer', 'notify.email', 'notify.phone', 'note'] as const;

const EMPTY: Values = { tid: '', courier: AUTO, title: '', orderId: '', customer: '', notify: { email: '', phone: '' }, note: '' };

function DetectedCourier({ tid }: { tid: string }) {
  const [debounced] = useDebouncedValue(tid.trim(), 350);
  const detect = useDetectCourier(debounced);
  if (debounced.replace(/\s/g, '').length < 6)
    return (
      <Text size="xs" c="dimmed">
        Type the number and we will recognise the carrier.
      </Text>
    );
  if (detect.isFetching) {
    return (
      <Group gap={6}>
        <Loader size={12} />
        <Text size="xs" c="dimmed">
          Detecting carrier…
        </Text>
      </Group>
    );
  }
  const first = detect.data?.[0];
  if (!first)
    return (
      <Text size="xs" c="orange.8" data-testid="detected-courier">
        We could not recognise this number. Pick the courier from the list.
      </Text>
    );
  return (
    <Group gap={6} data-testid="detected-courier">
      <IconSparkles size={14} color="var(--mantine-primary-color-filled)" />
      <Text size="xs">
        Detected: <b>{detect.data!.map((d) => d.name).join(' or ')}</b>
        {first.checkDigitValid === false ? ' (check digit does not match)' : ''}
      </Text>
    </Group>
  );
}

export function AddTrackingModal({
  opened,
  onClose,
  onAdded,
  isCompany,
}: {
  opened: boolean;
  onClose: () => void;
  onAdded: (tid: string) => void;
  isCompany: boolean;
}) {
  const { couriers } = useCouriers();
  const [more, setMore] = useState(isCompany);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: EMPTY,
    validate: zodResolver(addTrackingForm),
    validateInputOnBlur: true,
  });
  const add = useAddTracking();
  const resetAdd = add.reset;
  // A server answer is about the number that was sent ("You are already tracking …"): once the number or
  // courier changes it no longer applies, so it goes.
  useEffect(() => {
    resetAdd();
  }, [form.values.tid, form.values.courier, resetAdd]);
  // Field errors are shown under their fields; only an answer not tied to a field needs the box.
  const formError = add.isError && !errorsBelongTo(add.error, FIELDS) ? add.error.message : null;
  const close = () => {
    form.reset();
    add.reset();
    onClose();
  };
  const submit = (v: Values) => {
    const body = {
      tid: v.tid.trim(),
      courier: v.courier === AUTO ? null : v.courier,
      title: v.title.trim() || undefined,
      orderId: v.orderId.trim() || undefined,
      customer: v.customer.trim() || undefined,
      notify: { email: v.notify.email.trim() || undefined, phone: v.notify.phone.trim() || undefined },
      note: v.note.trim() || undefined,
    };
    add.mutate(body, {
      onSuccess: (env) => {
        toastSuccess(env.message || 'Tracking added');
        onAdded(env.payload?.tid ?? body.tid);
        close();
      },
      onError: (e) => applyServerErrors(form, e),
    });
  };
  const courierData = [
    { value: AUTO, label: 'Detect automatically' },
    ...couriers.map((c) => ({ value: c.courier, label: c.name, sandbox: c.sandbox })),
  ];
  return (
    <Modal opened={opened} onClose={close} title="Add New Tracking Number" size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Add New Tracking Number">
        <Stack gap="md">
          {formError && (
            <Alert color="red" title="Could not add this tracking" data-testid="add-tracking-error">
              {formError}
            </Alert>
          )}
          <TextInput
            label="Tracking number"
            placeholder="1Z5R89390350075608"
            required
            data-autofocus
            autoComplete="off"
            {...form.getInputProps('tid')}
          />
          <SandboxNumbers couriers={couriers} onPick={(tid) => form.setFieldValue('tid', tid)} />
          <div>
            <CourierSelect data={courierData} {...form.getInputProps('courier')} />
            {form.values.courier === AUTO && (
              <Stack mt={6}>
                <DetectedCourier tid={form.values.tid} />
              </Stack>
            )}
          </div>
          <UnstyledButton onClick={() => setMore((m) => !m)} aria-expanded={more}>
            <Group gap={4}>
              {more ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
              <Text size="sm" fw={600}>
                Details and customer notifications
              </Text>
            </Group>
          </UnstyledButton>
          <Collapse expanded={more}>
            <TrackingDetailsFields form={form} />
          </Collapse>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={!form.isValid() || add.isPending}>
              Add tracking
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
