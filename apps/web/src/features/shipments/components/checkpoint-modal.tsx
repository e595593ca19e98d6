import { Alert, Button, FileInput, Flex, Group, Image, Modal, Select, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { IconCamera, IconCurrentLocation } from '@tabler/icons-react';
import { useState } from 'react';
import { SHIPMENT_STATUSES, STATUS_LABELS, type ShipmentView } from '@shiptrail/contract';
import { ApiError } from '../../../lib/api-client';
import { applyServerErrors, toastSuccess } from '../../../lib/notify';
import { useInvalidateShipments, useUpdateShipment } from '../api/mutations';
import { drain, enqueue } from '../api/outbox';
import { isOnline } from '../../../lib/connection';
import { useUserInfo } from '../../../lib/user-info';
import { emptyCheckpoint, proofWanted, toUpdateBody, validateCheckpoint, type CheckpointValues } from '../api/checkpoint-form';
import { photoToDataUrl } from '../api/photo';
import { SignatureField } from './signature-field';

const KEPT_OFFLINE = 'No signal: it is kept on this phone and sent by itself when you are back online.';

type Form = UseFormReturnType<CheckpointValues>;

/** "Use my position": the phone's position into the form, or a sentence saying why not. */
function useLocate(form: Form, setFormError: (e: string) => void) {
  const [locating, setLocating] = useState(false);
  const locate = () => {
    if (!navigator.geolocation) {
      setFormError('This device cannot share its position.');
      return;
    }
    setLocating(true);
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        setLocating(false);
        form.setFieldValue('lat', Math.round(pos.coords.latitude * 1e6) / 1e6);
        form.setFieldValue('long', Math.round(pos.coords.longitude * 1e6) / 1e6);
      },
      () => {
        setLocating(false);
        setFormError('Could not get your position. Allow location access or type the place.');
      },
      { enableHighAccuracy: true, timeout: 10_000 },
    );
  };
  return { locating, locate };
}

/** The proof's photo: the file chosen, shrunk into the form as a data URL (busy meanwhile). */
function usePhoto(form: Form) {
  const [photoBusy, setPhotoBusy] = useState(false);
  const [photoFile, setPhotoFile] = useState<File | null>(null);
  const pickPhoto = async (file: File | null) => {
    setPhotoFile(file);
    form.setFieldError('photo', null);
    if (!file) {
      form.setFieldValue('photo', '');
      return;
    }
    setPhotoBusy(true);
    try {
      form.setFieldValue('photo', await photoToDataUrl(file));
    } catch (e) {
      form.setFieldValue('photo', '');
      form.setFieldError('photo', (e as Error).message);
    } finally {
      setPhotoBusy(false);
    }
  };
  return { photoBusy, photoFile, pickPhoto };
}

/**
 * Saving the checkpoint. A courier's goes through the phone's outbox (decision 120): kept on the phone first, with
 * the time it was made and its own Idempotency-Key, then sent. Without signal the form closes and it waits its
 * turn; a refusal while the courier is still here is shown in the form, as before. The owner's is sent at once.
 */
function useSaveCheckpoint(
  shipment: ShipmentView,
  asCourier: boolean,
  form: Form,
  onClose: () => void,
  setFormError: (e: string | null) => void,
) {
  const update = useUpdateShipment();
  const invalidate = useInvalidateShipments();
  const { data: info } = useUserInfo();
  const refused = (e: Error) => {
    applyServerErrors(form, e);
    const fieldErrors = e instanceof ApiError ? e.errors : {};
    // Proof errors come back as proof.*; the form names those fields without the prefix.
    for (const [k, msg] of Object.entries(fieldErrors)) if (k.startsWith('proof.')) form.setFieldError(k.slice(6), msg);
    setFormError(e.message);
  };

  const account = info?.profile.uid;
  const [queueing, setQueueing] = useState(false);
  const submitAsCourier = async (values: CheckpointValues) => {
    if (!account) return;
    setQueueing(true);
    try {
      const item = await enqueue(account, toUpdateBody(shipment.tid, values, asCourier));
      if (!isOnline()) {
        toastSuccess(KEPT_OFFLINE, 'Saved on this phone');
        onClose();
        return;
      }
      const outcome = (await drain(account, item.key)).get(item.key);
      if (outcome instanceof ApiError) return refused(outcome);
      if (outcome === 'sent') {
        toastSuccess('Checkpoint added', 'Checkpoint added');
        invalidate();
      } else toastSuccess(KEPT_OFFLINE, 'Saved on this phone');
      onClose();
    } catch (e) {
      setFormError((e as Error).message || 'Could not save this on the phone. Please try again.');
    } finally {
      setQueueing(false);
    }
  };

  const submit = (values: CheckpointValues) => {
    setFormError(null);
    if (asCourier) return void submitAsCourier(values);
    update.mutate(toUpdateBody(shipment.tid, values, asCourier), {
      onSuccess: (env) => {
        toastSuccess(env.message || 'Checkpoint added', 'Checkpoint added');
        onClose();
      },
      onError: refused,
    });
  };
  return { submit, busy: update.isPending || queueing };
}

/** For Delivered: the recipient's name, a signature and a photo (optional for the owner). */
function ProofFields({ form, asCourier, photo }: { form: Form; asCourier: boolean; photo: ReturnType<typeof usePhoto> }) {
  const v = form.values;
  return (
    <Stack gap="sm" p="sm" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }}>
      <Text fw={600}>Proof of delivery{!asCourier && ' (optional)'}</Text>
      <TextInput
        label="Recipient's name"
        size="md"
        required={asCourier || proofWanted(v, asCourier)}
        autoComplete="off"
        {...form.getInputProps('recipientName')}
      />
      <SignatureField value={v.signature} onChange={(s) => form.setFieldValue('signature', s)} error={form.errors.signature} />
      <SimpleGrid cols={1}>
        <FileInput
          label="Photo (optional)"
          size="md"
          placeholder="Take or choose a photo"
          leftSection={<IconCamera size={18} />}
          accept="image/*"
          clearable
          value={photo.photoFile}
          onChange={photo.pickPhoto}
          error={form.errors.photo}
          // The phone opens its camera straight away.
          capture="environment"
          disabled={photo.photoBusy}
        />
        {v.photo && <Image src={v.photo} alt="Photo to send" mah={200} fit="contain" radius="sm" />}
      </SimpleGrid>
    </Stack>
  );
}

/** The status, the place (typed or the phone's position) and a message. */
function WhatAndWhere({ form, setFormError }: { form: Form; setFormError: (e: string) => void }) {
  const { locating, locate } = useLocate(form, setFormError);
  const v = form.values;
  return (
    <>
      <Select
        label="Status"
        size="md"
        required
        allowDeselect={false}
        data={SHIPMENT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))}
        {...form.getInputProps('status')}
      />
      <TextInput
        label="Location"
        size="md"
        required
        placeholder="City, depot or street"
        autoComplete="off"
        {...form.getInputProps('location')}
      />
      <Group gap="xs" align="center">
        <Button variant="light" leftSection={<IconCurrentLocation size={18} />} onClick={locate} loading={locating}>
          Use my position
        </Button>
        {v.lat !== '' && v.long !== '' && (
          <Text size="sm" c="dimmed" data-testid="checkpoint-position">
            {v.lat}, {v.long}
          </Text>
        )}
      </Group>
      <Textarea
        label="Message"
        size="md"
        autosize
        minRows={2}
        placeholder="Left with the neighbour, parcel scanned at depot…"
        {...form.getInputProps('message')}
      />
    </>
  );
}

/**
 * Adds a checkpoint (and sets the status). Made for a courier's phone: full screen on narrow screens, large
 * controls, the position from the phone, and for Delivered the recipient's name, a signature and a photo.
 */
export function CheckpointModal({ shipment, asCourier, onClose }: { shipment: ShipmentView; asCourier: boolean; onClose: () => void }) {
  const phone = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  const form = useForm<CheckpointValues>({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: emptyCheckpoint(shipment.status === 'InfoReceived' ? 'InTransit' : shipment.status),
    validate: (v) => validateCheckpoint(shipment.tid, v, asCourier),
  });
  const [formError, setFormError] = useState<string | null>(null);
  const photo = usePhoto(form);
  const { submit, busy } = useSaveCheckpoint(shipment, asCourier, form, onClose, setFormError);
  // The spec keeps Save disabled while the form is invalid; the sentence under it says what is still missing,
  // in the same words the fields show, so a disabled button is never a riddle on a phone.
  const missing = [...new Set(Object.values(validateCheckpoint(shipment.tid, form.values, asCourier)))];

  return (
    <Modal opened onClose={onClose} title={`Add checkpoint · ${shipment.tid}`} size="lg" fullScreen={phone} closeOnClickOutside={false}>
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Add checkpoint">
        <Stack gap="md">
          {formError && (
            <Alert color="red" data-testid="checkpoint-error">
              {formError}
            </Alert>
          )}
          <Text size="sm" c="dimmed">
            To {[shipment.destination.name, shipment.destination.address1, shipment.destination.city].filter(Boolean).join(', ')}
          </Text>
          <WhatAndWhere form={form} setFormError={setFormError} />
          {form.values.status === 'Delivered' && <ProofFields form={form} asCourier={asCourier} photo={photo} />}
          {/* On a phone the buttons stack at full width, so "Save checkpoint" is never cut at 360 px. */}
          <Flex direction={phone ? 'column-reverse' : 'row'} justify="flex-end" gap="sm" mt="sm">
            <Button variant="default" size="md" onClick={onClose} fullWidth={phone}>
              Cancel
            </Button>
            <Button type="submit" size="md" loading={busy} disabled={busy || photo.photoBusy || missing.length > 0} fullWidth={phone}>
              Save checkpoint
            </Button>
          </Flex>
          {missing.length > 0 && (
            <Text size="sm" c="dimmed" ta={phone ? 'center' : 'right'} data-testid="checkpoint-missing" aria-live="polite">
              To save: {missing.join(' · ')}
            </Text>
          )}
        </Stack>
      </form>
    </Modal>
  );
}
