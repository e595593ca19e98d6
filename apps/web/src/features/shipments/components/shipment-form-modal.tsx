import {
  ActionIcon,
  Alert,
  Autocomplete,
  Button,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Stepper,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch, IconTrash } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { COURIER_REQUIRED, MAX_PARCELS, type GeoPlace, type ShipmentView } from '@shiptrail/contract';
import { isLookupZip, lookupZip, useGeoSuggestions } from '../api/geo';
import { couriersOf, memberName, useMembers } from '../../../lib/members';
import { ApiError } from '../../../lib/api-client';
import { applyServerErrors, toastSuccess } from '../../../lib/notify';
import { CustomerMessagesHeld } from '../../../components/customer-messages-held';
import { CreateCourierLink, noCouriersHint } from './no-couriers-hint';
import { useCreateShipment, useEditShipment } from '../api/mutations';
import {
  emptyParcel,
  emptyShipment,
  isParcelField,
  pageOneErrors,
  toCreateBody,
  toEditBody,
  UNASSIGNED,
  validateShipment,
  valuesOf,
  type ShipmentValues,
} from '../api/shipment-form';

type Form = UseFormReturnType<ShipmentValues>;

/** A long page of fields: bring the first one in error into view (after React has drawn the errors). */
function focusFirstError() {
  requestAnimationFrame(() => {
    const el = document.querySelector<HTMLElement>('form[data-shipment-form] [aria-invalid="true"]');
    el?.scrollIntoView({ block: 'center' });
    el?.focus({ preventScroll: true });
  });
}

/**
 * Search the geocoder for an address, a city or a ZIP and fill the address from the pick; and fill city and
 * state from a typed ZIP (the offline data knows every US ZIP and Canadian postal code). A field the person
 * typed is never overwritten by the ZIP autofill, only one that was empty or filled by it before.
 */
function useAddressGeo(form: Form, side: 'origin' | 'destination') {
  const autofilled = useRef<{ city?: string; state?: string }>({});
  const lastZip = useRef('');
  const path = (f: string) => `${side}.${f}`;
  const current = () => form.getValues()[side];

  const fill = (place: GeoPlace) => {
    if (place.address1) form.setFieldValue(path('address1'), place.address1);
    if (place.city) form.setFieldValue(path('city'), place.city);
    if (place.state) form.setFieldValue(path('state'), place.state);
    if (place.zip) form.setFieldValue(path('zip'), place.zip);
    if (place.country) form.setFieldValue(path('country'), place.country);
    autofilled.current = { city: place.city, state: place.state };
  };

  const onZip = async (zip: string) => {
    if (!isLookupZip(zip) || zip.trim() === lastZip.current) return;
    lastZip.current = zip.trim();
    const place = await lookupZip(zip).catch(() => null);
    if (!place || current().zip.trim() !== zip.trim()) return;
    const a = current();
    const mayFill = (f: 'city' | 'state') => a[f].trim() === '' || a[f] === autofilled.current[f];
    const next = { ...autofilled.current };
    if (mayFill('city')) {
      form.setFieldValue(path('city'), place.city);
      next.city = place.city;
    }
    if (mayFill('state')) {
      form.setFieldValue(path('state'), place.state);
      next.state = place.state;
    }
    if (!a.country.trim() || a.country === 'US' || a.country === 'CA') form.setFieldValue(path('country'), place.country);
    autofilled.current = next;
  };
  return { fill, onZip };
}

function AddressSearch({ onPick, side }: { onPick: (p: GeoPlace) => void; side: string }) {
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q, 250);
  const found = useGeoSuggestions(debounced);
  const places = found.data ?? [];
  return (
    <Autocomplete
      label="Find an address"
      description="A street address, a city or a ZIP: pick a match to fill the fields below."
      placeholder="e.g. 90210 or Springfield, IL"
      leftSection={<IconSearch size={14} />}
      value={q}
      onChange={setQ}
      data={places.map((p, i) => ({ value: `${i}`, label: p.label }))}
      filter={({ options }) => options}
      onOptionSubmit={(v) => {
        const p = places[Number(v)];
        if (p) onPick(p);
        setQ('');
      }}
      aria-label={`Find the ${side} address`}
      autoComplete="off"
      mb="xs"
    />
  );
}

function AddressFields({ form, side }: { form: Form; side: 'origin' | 'destination' }) {
  const p = (f: string) => form.getInputProps(`${side}.${f}`);
  const title = side === 'origin' ? 'Origin (sender)' : 'Destination (recipient)';
  const geo = useAddressGeo(form, side);
  const zip = p('zip');
  return (
    <Fieldset legend={title} aria-label={title}>
      <AddressSearch onPick={geo.fill} side={side} />
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="xs">
        <TextInput label="Name" autoComplete="off" {...p('name')} />
        <TextInput label="Company" autoComplete="off" {...p('company')} />
        <TextInput label="Address 1" required autoComplete="off" {...p('address1')} />
        <TextInput label="Address 2" autoComplete="off" {...p('address2')} />
        <TextInput label="City" required autoComplete="off" {...p('city')} />
        <TextInput label="State" autoComplete="off" {...p('state')} />
        <TextInput
          label="Zip"
          required
          autoComplete="off"
          {...zip}
          onChange={(e) => {
            zip.onChange(e);
            void geo.onZip(e.currentTarget.value);
          }}
        />
        <TextInput label="Country" autoComplete="off" {...p('country')} />
        <TextInput label="Email" type="email" autoComplete="off" {...p('email')} />
        <TextInput label="Phone" type="tel" placeholder="(212) 555-0142" autoComplete="off" {...p('phone')} />
      </SimpleGrid>
    </Fieldset>
  );
}

function ParcelFields({ form }: { form: Form }) {
  const parcels = form.values.parcels;
  const listError = form.errors.parcels;
  return (
    <Stack gap="sm">
      {parcels.map((_, i) => {
        const p = (f: string) => form.getInputProps(`parcels.${i}.${f}`);
        return (
          <Fieldset key={form.key(`parcels.${i}`)} legend={`Parcel ${i + 1}`} aria-label={`Parcel ${i + 1}`}>
            <Group align="flex-end" gap="sm" wrap="nowrap" mb="xs">
              <TextInput label="Name" required style={{ flex: 1 }} {...p('name')} />
              <NumberInput label="Quantity" min={1} allowDecimal={false} w={96} {...p('quantity')} />
              {parcels.length > 1 && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="lg"
                  mb={2}
                  aria-label={`Remove parcel ${i + 1}`}
                  onClick={() => form.removeListItem('parcels', i)}
                >
                  <IconTrash size={18} />
                </ActionIcon>
              )}
            </Group>
            <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" verticalSpacing="xs">
              <NumberInput label="Length" required min={0} {...p('length')} />
              <NumberInput label="Width" required min={0} {...p('width')} />
              <NumberInput label="Height" required min={0} {...p('height')} />
              <TextInput label="Distance unit" {...p('distanceUnit')} />
              <NumberInput label="Weight" required min={0} {...p('weight')} />
              <TextInput label="Weight unit" {...p('weightUnit')} />
            </SimpleGrid>
          </Fieldset>
        );
      })}
      {listError && (
        <Text size="sm" c="red">
          {listError}
        </Text>
      )}
      <Button
        variant="default"
        leftSection={<IconPlus size={16} />}
        onClick={() => form.insertListItem('parcels', emptyParcel())}
        disabled={parcels.length >= MAX_PARCELS}
        style={{ alignSelf: 'flex-start' }}
      >
        Add parcel
      </Button>
    </Stack>
  );
}

/** Page 1's general fields: the courier (or nobody yet, for a new shipment), the order, the day and window, a note. */
function GeneralFields({
  form,
  couriers,
  mode,
  membersLoading,
}: {
  form: Form;
  couriers: ReturnType<typeof couriersOf>;
  mode: 'create' | 'edit';
  membersLoading: boolean;
}) {
  const courierError = form.errors.courierEmail;
  return (
    <Fieldset legend="General" aria-label="General">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="xs">
        <Select
          label="Courier"
          required
          placeholder={couriers.length ? 'Choose a courier' : 'No couriers yet'}
          data={[
            // A new shipment may wait for its courier: assigned later from the list (decision 098).
            ...(mode === 'create' ? [{ value: UNASSIGNED, label: 'Nobody yet (assign later)' }] : []),
            ...couriers.map((c) => ({ value: c.email, label: `${memberName(c)} (${c.email})` })),
          ]}
          searchable
          nothingFoundMessage="No courier with that name"
          {...form.getInputProps('courierEmail')}
          error={
            courierError ? (
              <>
                {courierError} {courierError === COURIER_REQUIRED && <CreateCourierLink />}
              </>
            ) : undefined
          }
          description={noCouriersHint(couriers, membersLoading)}
        />
        <TextInput label="Order ID" autoComplete="off" {...form.getInputProps('orderId')} />
        <TextInput label="Expected delivery" type="date" {...form.getInputProps('expected')} />
        <TextInput label="Delivery window from" type="time" {...form.getInputProps('windowFrom')} />
        <TextInput label="Delivery window to" type="time" {...form.getInputProps('windowTo')} />
      </SimpleGrid>
      <Textarea label="Note" autosize minRows={2} mt="xs" {...form.getInputProps('message')} />
    </Fieldset>
  );
}

/** Page 1: the general fields, the origin and the destination. */
function PageOne(props: Parameters<typeof GeneralFields>[0]) {
  return (
    <Stack gap="md">
      <GeneralFields {...props} />
      <AddressFields form={props.form} side="origin" />
      <AddressFields form={props.form} side="destination" />
      <CustomerMessagesHeld />
    </Stack>
  );
}

/** Previous or Cancel; Next on page 1, the submit button (and what it waits for) on page 2. */
function WizardButtons({
  step,
  onPrevious,
  onCancel,
  onNext,
  incomplete,
  pending,
  disabled,
  submitLabel,
}: {
  step: number;
  onPrevious: () => void;
  onCancel: () => void;
  onNext: () => void;
  incomplete: boolean;
  pending: boolean;
  disabled: boolean;
  submitLabel: string;
}) {
  return (
    <Group justify="space-between" mt="xl">
      {step > 0 ? (
        <Button variant="default" onClick={onPrevious}>
          Previous
        </Button>
      ) : (
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
      )}
      {/* Distinct keys: reusing the Next button's element as the submit button made the click that turns
          the page also submit the form, skipping page 2. */}
      {step === 0 ? (
        <Button key="next" onClick={onNext}>
          Next
        </Button>
      ) : (
        <Group key="submit" gap="sm">
          {incomplete ? (
            <Text size="xs" c="dimmed" data-testid="shipment-form-incomplete">
              Complete the fields marked required
            </Text>
          ) : null}
          <Button type="submit" loading={pending} disabled={disabled}>
            {submitLabel}
          </Button>
        </Group>
      )}
    </Group>
  );
}

/** Creating or saving the shipment; the server's field errors go to their fields (page 1's take the user there). */
function useSaveShipment({
  shipment,
  mode,
  form,
  nameOf,
  setStep,
  setFormError,
  onSaved,
  onClose,
}: {
  shipment?: ShipmentView | null;
  mode: 'create' | 'edit';
  form: Form;
  nameOf: (email: string) => string;
  setStep: (step: number) => void;
  setFormError: (e: string | null) => void;
  onSaved?: (tid: string) => void;
  onClose: () => void;
}) {
  const create = useCreateShipment();
  const edit = useEditShipment();
  const onServerError = (e: Error) => {
    applyServerErrors(form, e);
    // A field error on the first page takes the user back there to see it.
    if (e instanceof ApiError && Object.keys(e.errors).some((k) => !isParcelField(k))) setStep(0);
    setFormError(e.message);
  };

  const save = (v: ShipmentValues) => {
    setFormError(null);
    const name = nameOf(v.courierEmail);
    if (mode === 'create') {
      create.mutate(toCreateBody(v, name), {
        onSuccess: (env) => {
          toastSuccess(env.message || 'Shipment created', 'Shipment created');
          onSaved?.(env.payload?.tid ?? '');
          onClose();
        },
        onError: onServerError,
      });
    } else if (shipment) {
      edit.mutate(toEditBody(shipment.tid, v, name), {
        onSuccess: (env) => {
          toastSuccess(env.message || 'Saved', 'Shipment saved');
          onSaved?.(shipment.tid);
          onClose();
        },
        onError: onServerError,
      });
    }
  };
  return { save, pending: create.isPending || edit.isPending };
}

/** The company's couriers, and the name of a courier by address (for the shipment's courier field). */
function useCourierNames(shipment: ShipmentView | null | undefined) {
  const members = useMembers();
  const couriers = couriersOf(members.data ?? []);
  const nameOf = (email: string) => {
    const m = couriers.find((c) => c.email === email);
    if (m) return memberName(m);
    // An edited shipment may carry a courier who is not (or no longer) a member: keep its name.
    return shipment && shipment.courierEmail === email ? shipment.courier : '';
  };
  return { members, couriers, nameOf };
}

/**
 * The Add New Shipment wizard (page 1: origin, destination and general; page 2: parcels) and, given a
 * shipment, the same two pages to edit it.
 */
export function ShipmentFormModal({
  shipment,
  onClose,
  onSaved,
}: {
  shipment?: ShipmentView | null;
  onClose: () => void;
  onSaved?: (tid: string) => void;
}) {
  const mode = shipment ? 'edit' : 'create';
  const { members, couriers, nameOf } = useCourierNames(shipment);
  const [step, setStep] = useState(0);
  const form = useForm<ShipmentValues>({
    mode: 'controlled',
    initialValues: shipment ? valuesOf(shipment) : emptyShipment(),
    validate: (v) => validateShipment(v, nameOf(v.courierEmail), mode),
    // Page 2's submit stays disabled until the whole form is valid (product rules §4), so a field says what
    // it lacks as soon as it is left.
    validateInputOnBlur: true,
  });
  const invalid = Object.keys(validateShipment(form.values, nameOf(form.values.courierEmail), mode)).length > 0;
  const [formError, setFormError] = useState<string | null>(null);

  const next = () => {
    const errors = pageOneErrors(validateShipment(form.values, nameOf(form.values.courierEmail), mode));
    form.clearErrors();
    if (Object.keys(errors).length) {
      form.setErrors(errors);
      focusFirstError();
      return;
    }
    setStep(1);
  };

  const { save, pending } = useSaveShipment({ shipment, mode, form, nameOf, setStep, setFormError, onSaved, onClose });

  const title = mode === 'create' ? 'Add New Shipment' : `Edit shipment ${shipment?.tid ?? ''}`;
  return (
    <Modal opened onClose={onClose} title={title} size="xl" fullScreen={false} closeOnClickOutside={false}>
      <form
        onSubmit={form.onSubmit(save, (errors) => {
          if (Object.keys(errors).some((k) => !isParcelField(k))) setStep(0);
          focusFirstError();
        })}
        data-shipment-form
        noValidate
        aria-label={title}
      >
        <Stepper active={step} size="sm" mb="lg" allowNextStepsSelect={false}>
          <Stepper.Step label="Page 1" description="Addresses and courier" />
          <Stepper.Step label="Page 2" description="Parcels" />
        </Stepper>
        {formError && (
          <Alert color="red" mb="md" data-testid="shipment-form-error">
            {formError}
          </Alert>
        )}
        {step === 0 ? (
          <PageOne form={form} couriers={couriers} mode={mode} membersLoading={members.isLoading} />
        ) : (
          <ParcelFields form={form} />
        )}
        <WizardButtons
          step={step}
          onPrevious={() => setStep(0)}
          onCancel={onClose}
          onNext={next}
          incomplete={invalid && !pending}
          pending={pending}
          disabled={pending || invalid}
          submitLabel={mode === 'create' ? 'Create shipment' : 'Save'}
        />
      </form>
    </Modal>
  );
}
