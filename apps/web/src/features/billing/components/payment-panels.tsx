import { lazy, Suspense, useState } from 'react';
import { Alert, Anchor, Badge, Button, Card, Group, Image, Loader, Stack, Switch, Table, Tabs, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { AUTO_RECHARGE, MSG, addBalanceRequest, paymentEditRequest, type PaymentHistoryItem, type UserInfo } from '@shiptrail/contract';
import { applyServerErrors } from '../../../lib/notify';
import { zodResolver } from '../../../lib/zod-resolver';
import { Link } from 'react-router';
import { formatDate, money } from '../../../lib/format';
import { SubTabs } from '../../../components/sub-tabs';
import { TableHead } from '../../../components/table-head';
import { useAddBalance, useEditAutofill, usePaymentHistory, usePaymentInfo } from '../api/billing';
import { cardWords, paymentStatusWords } from '../api/payment-words';
import { SandboxCardForm } from './card-form';

// Braintree's drop-in is heavy and only needed on the card step when the gateway is Braintree.
const BraintreeDropIn = lazy(() => import('./braintree-drop-in').then((m) => ({ default: m.BraintreeDropIn })));
import { SandboxBadge } from './sandbox-badge';
import { AmountPicker } from './amount-picker';
import { UsagePanel } from './usage-panel';

function CardOnFile() {
  const { data } = usePaymentInfo();
  if (!data) return null;
  return (
    <Card withBorder maw={520} data-testid="card-on-file">
      <Group justify="space-between">
        <Group>
          {data.details?.imageUrl ? <Image src={data.details.imageUrl} w={40} alt="" fallbackSrc="" /> : null}
          <div>
            <Text fw={600}>{data.paymentActive ? `${data.details!.cardType} ending in ${data.details!.last4}` : 'No card on file'}</Text>
            {data.paymentActive ? (
              <Text size="sm" c="dimmed">
                {data.details!.cardholderName} · expires {data.details!.expirationMonth}/{data.details!.expirationYear}
              </Text>
            ) : null}
          </div>
        </Group>
        {data.sandbox ? <SandboxBadge /> : null}
      </Group>
    </Card>
  );
}

/** Settings › Payment Method: add (the card form) and autofill (automatic top-up). */
export function PaymentMethodPanel({ info, subTab, onSubTab }: { info: UserInfo; subTab?: string; onSubTab: (s: string) => void }) {
  const { data } = usePaymentInfo();
  return (
    <SubTabs current={subTab} onChange={onSubTab} tabs={{ add: 'Payment method', autofill: 'Automatic top-up' }}>
      <Tabs.Panel value="add">
        <Stack>
          <CardOnFile />
          <Title order={4}>{data?.paymentActive ? 'Replace the card' : 'Add a card'}</Title>
          {data && data.gateway === 'braintree' ? (
            <Suspense fallback={<Loader size="sm" />}>
              <BraintreeDropIn />
            </Suspense>
          ) : (
            <SandboxCardForm defaultName={{ firstName: info.profile.firstName, lastName: info.profile.lastName }} />
          )}
        </Stack>
      </Tabs.Panel>
      <Tabs.Panel value="autofill">
        <AutofillForm />
      </Tabs.Panel>
    </SubTabs>
  );
}

type AutofillValues = { amountAutoRecharge: number | string; minimumBalanceForAutoRecharge: number | string };

/**
 * Automatic top-up (the product's "Autofill setting", decision 102): an on/off switch, then the amount and the
 * balance under which it happens. Off is saved as 0 and 0, the API's way of turning it off. While on, the
 * contract's schema checks the values as you type (the server's own words, decision 101).
 */
function AutofillForm() {
  const { data } = usePaymentInfo();
  const edit = useEditAutofill();
  const [on, setOn] = useState(false);
  const checkValues = zodResolver<AutofillValues>(paymentEditRequest);
  const form = useForm<AutofillValues>({
    mode: 'controlled',
    initialValues: { amountAutoRecharge: AUTO_RECHARGE.defaultAmount, minimumBalanceForAutoRecharge: AUTO_RECHARGE.defaultMinimum },
    validate: (values) => (on ? checkValues(values) : {}),
    validateInputOnChange: true,
  });
  const [loaded, setLoaded] = useState(false);
  if (data && !loaded) {
    setLoaded(true);
    setOn(data.amountAutoRecharge > 0);
    if (data.amountAutoRecharge > 0)
      form.setValues({ amountAutoRecharge: data.amountAutoRecharge, minimumBalanceForAutoRecharge: data.minimumBalanceForAutoRecharge });
  }
  return (
    <form
      noValidate
      aria-label="Automatic top-up"
      onSubmit={form.onSubmit((v) =>
        edit.mutate(on ? v : { amountAutoRecharge: 0, minimumBalanceForAutoRecharge: 0 }, { onError: (e) => applyServerErrors(form, e) }),
      )}
    >
      <Stack maw={520}>
        <Switch
          size="lg"
          checked={on}
          onChange={(e) => setOn(e.currentTarget.checked)}
          onLabel="ON"
          offLabel="OFF"
          label="Automatic top-up"
          description="When a charge takes your balance under the minimum, your card is charged the top-up amount once."
        />
        {data && !data.paymentActive ? <Alert color="yellow">{MSG.noPaymentMethod}</Alert> : null}
        {on ? (
          <>
            <AmountPicker
              label="Top-up amount"
              name="amountAutoRecharge"
              value={form.values.amountAutoRecharge}
              onChange={(v) => form.setFieldValue('amountAutoRecharge', v)}
              error={form.errors.amountAutoRecharge}
            />
            <AmountPicker
              label="When the balance falls under"
              name="minimumBalanceForAutoRecharge"
              value={form.values.minimumBalanceForAutoRecharge}
              onChange={(v) => form.setFieldValue('minimumBalanceForAutoRecharge', v)}
              error={form.errors.minimumBalanceForAutoRecharge}
            />
          </>
        ) : null}
        <Group>
          <Button type="submit" loading={edit.isPending} disabled={(on && !form.isValid()) || edit.isPending}>
            Save automatic top-up
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Settings › Add Balance. */
export function AddBalancePanel({ info }: { info: UserInfo }) {
  const add = useAddBalance();
  const { data } = usePaymentInfo();
  const form = useForm<{ amount: number | string }>({
    mode: 'controlled',
    initialValues: { amount: AUTO_RECHARGE.defaultAmount },
    validate: zodResolver<{ amount: number | string }>(addBalanceRequest),
    validateInputOnChange: true,
  });
  return (
    <Stack maw={520}>
      <Group>
        <Text>
          Balance: <b data-testid="billing-balance">{money(info.profile.balance)}</b>
        </Text>
        {data?.sandbox ? <SandboxBadge /> : null}
      </Group>
      <CardOnFile />
      <form
        noValidate
        aria-label="Add balance"
        onSubmit={form.onSubmit((v) =>
          add.mutate({ amount: Number(v.amount), key: crypto.randomUUID() }, { onError: (e) => applyServerErrors(form, e) }),
        )}
      >
        <Stack>
          <AmountPicker
            label="Amount"
            name="amount"
            value={form.values.amount}
            onChange={(v) => form.setFieldValue('amount', v)}
            error={form.errors.amount}
          />
          <Group>
            <Button type="submit" loading={add.isPending} disabled={!data?.paymentActive || !form.isValid() || add.isPending}>
              Add Balance
            </Button>
            {data && !data.paymentActive ? (
              <Button component={Link} to="/account/profile/settings/payment/add" variant="subtle">
                Add a card first
              </Button>
            ) : null}
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

const TONE_COLOR = { paid: 'green', waiting: 'gray', failed: 'red' } as const;

function StatusBadge({ p }: { p: PaymentHistoryItem }) {
  const { label, tone } = paymentStatusWords(p.status);
  return (
    <Badge color={TONE_COLOR[tone]} variant="light" tt="none" title={p.processorResponseText}>
      {label}
    </Badge>
  );
}

const receiptOf = (p: PaymentHistoryItem) =>
  p.status === 'submitted_for_settlement' ? (
    <Anchor component={Link} to={`/account/profile/invoice/${p.id}`}>
      View receipt
    </Anchor>
  ) : null;
const kindWords = (p: PaymentHistoryItem) => (p.kind === 'auto_recharge' ? 'Automatic top-up' : 'Top-up');

function HistoryTable({ rows }: { rows: PaymentHistoryItem[] }) {
  if (!rows.length) return <Text c="dimmed">No payments yet.</Text>;
  return (
    <>
      <Table striped data-testid="payment-history" visibleFrom="sm">
        <TableHead columns={['Date', 'Amount', 'Card', 'Type', 'Status', 'Receipt']} />
        <Table.Tbody>
          {rows.map((p) => (
            <Table.Tr key={p.id}>
              <Table.Td>{formatDate(p.createdAt)}</Table.Td>
              <Table.Td>${p.amount}</Table.Td>
              <Table.Td>{cardWords(p.creditCard)}</Table.Td>
              <Table.Td>{kindWords(p)}</Table.Td>
              <Table.Td>
                <StatusBadge p={p} />
              </Table.Td>
              <Table.Td>{receiptOf(p) ?? '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {/* At phone width the six columns do not fit: one card per payment, nothing off-screen. */}
      <Stack gap="sm" hiddenFrom="sm" data-testid="payment-history-cards">
        {rows.map((p) => (
          <Card key={p.id} withBorder padding="sm">
            <Group justify="space-between" wrap="nowrap">
              <Text fw={600}>${p.amount}</Text>
              <StatusBadge p={p} />
            </Group>
            <Text size="sm" c="dimmed">
              {formatDate(p.createdAt)} · {kindWords(p)} · {cardWords(p.creditCard)}
            </Text>
            {receiptOf(p) ? <Text size="sm">{receiptOf(p)}</Text> : null}
          </Card>
        ))}
      </Stack>
    </>
  );
}

/** Settings › Payment History: Payments History and Usage Between Dates. */
export function PaymentHistoryPanel({ subTab, onSubTab }: { subTab?: string; onSubTab: (s: string) => void }) {
  const { data } = usePaymentHistory();
  return (
    <SubTabs current={subTab} onChange={onSubTab} tabs={{ payments: 'Payments History', usage: 'Usage Between Dates' }}>
      <Tabs.Panel value="payments">{data ? <HistoryTable rows={data} /> : null}</Tabs.Panel>
      <Tabs.Panel value="usage">
        <UsagePanel />
      </Tabs.Panel>
    </SubTabs>
  );
}
