import { Alert, Button, Center, Group, Loader, Paper, Stack, Stepper, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MSG, normalizeUsPhone, type UserInfo } from '@shiptrail/contract';
import { IconCreditCard, IconConfetti } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useUserInfo } from '../../../lib/user-info';
import { useUpdateUser } from '../api/update-user';
import { validateCompanyName } from '../api/company-name';
import { NotificationChannels, toChannelValues, validateReceive, type ChannelValues } from '../../../components/notification-channels';
import { sendSettings, useReceiveForm, useSendForm } from '../components/settings/channel-forms';
import { PageLoader } from '../../../components/page-loader';
import { CustomerMessagesHeld } from '../../../components/customer-messages-held';
import { UsPhoneInput } from '../../../components/us-phone-input';
import { money, timeZone } from '../../../lib/format';

type Phase = 'form' | 'saving' | 'done';
type UpdateBody = Parameters<ReturnType<typeof useUpdateUser>['mutate']>[0];

/** Both wizards save the same way: a loading view, then the success view, or back to the form with the error. */
function useWizardSave() {
  const update = useUpdateUser({ toast: false });
  const [phase, setPhase] = useState<Phase>('form');
  const [saveError, setSaveError] = useState<string | null>(null);
  const run = (body: UpdateBody) => {
    setPhase('saving');
    update.mutate(body, {
      onSuccess: () => setTimeout(() => setPhase('done'), 700),
      onError: (e) => {
        setPhase('form');
        setSaveError(e.message);
      },
    });
  };
  return { update, phase, saveError, setSaveError, run };
}

function Congratulations({ balance }: { balance: number }) {
  return (
    <Paper p={{ base: 'lg', sm: 48 }} maw={620} mx="auto" ta="center" data-testid="wizard-done">
      <Stack align="center" gap="md">
        <ThemeIcon size={72} radius="xl" variant="light">
          <IconConfetti size={40} />
        </ThemeIcon>
        <Title order={1} fz={30}>
          Congratulations!
        </Title>
        <Text size="lg">
          Your account is ready and your balance was credited: you have <b>{money(balance)}</b> to start tracking.
        </Text>
        <Text c="dimmed" size="sm" maw={460}>
          Add a payment method now so your alerts never stop when the balance runs out and your service is not interrupted.
        </Text>
        <Group mt="sm">
          <Button component={Link} to="/account/profile/settings/payment/add" leftSection={<IconCreditCard size={18} />}>
            Add Credit card
          </Button>
          <Button component={Link} to="/account/trackings" variant="default">
            Skip
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function PersonWizard({ info }: { info: UserInfo }) {
  const { update, phase, saveError, setSaveError, run } = useWizardSave();
  const [step, setStep] = useState(0);
  const contact = useForm({
    mode: 'controlled',
    initialValues: { email: info.profile.email, phone: info.profile.phone ?? '' },
    validate: { phone: (v) => (v.trim() && !normalizeUsPhone(v) ? MSG.phoneInvalid : null) },
    validateInputOnBlur: true,
  });
  const alerts = useForm<ChannelValues>({
    mode: 'controlled',
    initialValues: toChannelValues(info.settings.receiveNotification, ['email', 'phone'], {
      email: info.profile.email,
      phone: info.profile.phone,
    }),
  });

  const save = () => {
    setSaveError(null);
    const phone = contact.values.phone.trim();
    const smsOn = Object.values(alerts.values.phone?.triggers ?? {}).some(Boolean);
    // Spec §5: SMS alerts need a phone from step 1.
    if (smsOn && !normalizeUsPhone(phone)) {
      setSaveError(MSG.wizardPhoneForSms);
      contact.setFieldError('phone', MSG.phoneRequired);
      return;
    }
    const receive: ChannelValues = {
      email: { ...alerts.values.email!, endpoint: info.profile.email },
      phone: { ...alerts.values.phone!, endpoint: phone },
    };
    const errors = validateReceive(receive);
    if (Object.keys(errors).length) {
      setSaveError(Object.values(errors)[0]!);
      return;
    }
    run({
      profile: { phone: phone || undefined, showWizard: false, timeZone: timeZone(), token: info.profile.token },
      settings: { receiveNotification: receive, emailContent: null },
    });
  };

  if (phase === 'saving') return <SavingView />;
  if (phase === 'done') return <Congratulations balance={update.data?.payload?.profile?.balance ?? info.profile.balance} />;
  return (
    <WizardFrame
      step={step}
      labels={['Contact info', 'Alerts']}
      onPrev={() => setStep(0)}
      onNext={() => !contact.validate().hasErrors && setStep(1)}
      onSave={save}
      saving={update.isPending}
      nextDisabled={!contact.isValid()}
      error={saveError}
    >
      {step === 0 ? (
        <Stack>
          <Text c="dimmed" size="sm">
            This is where we send your alerts. You can change it later in your settings.
          </Text>
          <TextInput label="Email" readOnly {...contact.getInputProps('email')} description="Your login email" />
          <UsPhoneInput label="Phone" note="Needed for SMS alerts." {...contact.getInputProps('phone')} />
        </Stack>
      ) : (
        <Stack>
          <Text c="dimmed" size="sm">
            Choose which status changes you want to hear about. Email is free; each SMS costs a few cents from your balance.
          </Text>
          <NotificationChannels form={alerts} channels={['email', 'phone']} withEndpoints={false} caption="Alerts you receive" />
        </Stack>
      )}
    </WizardFrame>
  );
}

function CompanyWizard({ info }: { info: UserInfo }) {
  const { update, phase, saveError, setSaveError, run } = useWizardSave();
  const [step, setStep] = useState(0);
  const identity = useForm({
    mode: 'controlled',
    initialValues: { company: info.profile.company ?? '' },
    validate: { company: validateCompanyName },
    validateInputOnBlur: true,
  });
  const send = useSendForm(info);
  const receive = useReceiveForm(info);
  const save = () => {
    setSaveError(null);
    if (receive.validate().hasErrors) return;
    run({
      profile: { company: identity.values.company.trim(), showWizard: false, timeZone: timeZone(), token: info.profile.token },
      settings: {
        sendNotification: sendSettings(send.values),
        receiveNotification: receive.values,
        emailContent: null,
      },
    });
  };
  if (phase === 'saving') return <SavingView />;
  if (phase === 'done') return <Congratulations balance={update.data?.payload?.profile?.balance ?? info.profile.balance} />;
  return (
    <WizardFrame
      step={step}
      labels={['Notify your customers', 'Your alerts']}
      onPrev={() => setStep(0)}
      onNext={() => !identity.validate().hasErrors && setStep(1)}
      onSave={save}
      saving={update.isPending}
      nextDisabled={!identity.isValid()}
      error={saveError}
    >
      {step === 0 ? (
        <Stack>
          <TextInput
            label="Company name"
            required
            description="Your customers see this name on their shipment mails and tracking pages."
            autoComplete="organization"
            {...identity.getInputProps('company')}
          />
          <Text c="dimmed" size="sm">
            Which updates should your customers get? We send them to the email and phone you add on each tracking.
          </Text>
          <NotificationChannels
            form={send}
            channels={['email', 'phone']}
            withEndpoints={false}
            caption="Notifications sent to your customers"
          />
          <CustomerMessagesHeld />
        </Stack>
      ) : (
        <Stack>
          <Text c="dimmed" size="sm">
            Which updates do you want for yourself, and where should they go?
          </Text>
          <NotificationChannels form={receive} channels={['email', 'phone', 'webhook']} withEndpoints caption="Notifications you receive" />
        </Stack>
      )}
    </WizardFrame>
  );
}

function SavingView() {
  return (
    <Center mih={360}>
      <Stack align="center" gap="sm" role="status">
        <Loader size="lg" />
        <Text c="dimmed">Setting up your account…</Text>
      </Stack>
    </Center>
  );
}

function WizardFrame(props: {
  step: number;
  labels: [string, string];
  onPrev: () => void;
  onNext: () => void;
  onSave: () => void;
  saving: boolean;
  nextDisabled: boolean;
  error: string | null;
  children: React.ReactNode;
}) {
  return (
    <Paper p={{ base: 'md', sm: 'xl' }} maw={760} mx="auto">
      <Title order={1} fz={26} mb={4}>
        Set up your account
      </Title>
      <Text c="dimmed" mb="lg">
        Two quick steps and you are ready to track.
      </Text>
      <Stepper active={props.step} mb="xl" size="sm" allowNextStepsSelect={false}>
        <Stepper.Step label="Step 1" description={props.labels[0]} />
        <Stepper.Step label="Step 2" description={props.labels[1]} />
      </Stepper>
      {props.error && (
        <Alert color="red" mb="md" data-testid="wizard-error">
          {props.error}
        </Alert>
      )}
      {props.children}
      <Group justify="space-between" mt="xl">
        {props.step > 0 ? (
          <Button variant="default" onClick={props.onPrev}>
            Previous
          </Button>
        ) : (
          <span />
        )}
        {props.step === 0 ? (
          <Button onClick={props.onNext} disabled={props.nextDisabled}>
            Next
          </Button>
        ) : (
          <Button onClick={props.onSave} loading={props.saving} disabled={props.saving}>
            Save
          </Button>
        )}
      </Group>
    </Paper>
  );
}

export default function WizardRoute() {
  const { data } = useUserInfo();
  if (!data) return <PageLoader />;
  return data.profile.userType === 'company' ? <CompanyWizard info={data} /> : <PersonWizard info={data} />;
}
