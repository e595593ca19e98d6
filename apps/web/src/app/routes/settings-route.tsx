import { lazy, Suspense } from 'react';
import { Tabs } from '@mantine/core';
import { IconBell, IconCreditCard, IconKey, IconReceipt, IconUser, IconWallet } from '@tabler/icons-react';
import { useNavigate, useParams } from 'react-router';
import { useUserInfo } from '../../lib/user-info';
import { ProfileForm } from '../../features/account/components/settings/profile-form';
import { PasswordForm } from '../../features/account/components/settings/password-form';
import { ThemePicker } from '../../features/account/components/settings/theme-picker';
import { ApiKeyPanel } from '../../features/account/components/settings/api-key-panel';
import { TriggersPanel } from '../../features/account/components/settings/triggers-panel';
import { WebhookPanel } from '../../features/notifications/components/webhook-panel';
import { PageHeader } from '../../components/page-header';
import { PageLoader } from '../../components/page-loader';
import { SubTabs } from '../../components/sub-tabs';

// The billing screens are their own chunk, loaded when a billing tab opens.
const billing = () => import('../../features/billing/components/payment-panels');
const PaymentMethodPanel = lazy(() => billing().then((m) => ({ default: m.PaymentMethodPanel })));
const AddBalancePanel = lazy(() => billing().then((m) => ({ default: m.AddBalancePanel })));
const PaymentHistoryPanel = lazy(() => billing().then((m) => ({ default: m.PaymentHistoryPanel })));

const TABS = [
  { value: 'profile', label: 'My Account', icon: IconUser },
  { value: 'apiKey', label: 'API key', icon: IconKey },
  { value: 'triggers', label: 'Notification settings', icon: IconBell },
  { value: 'payment', label: 'Payment Method', icon: IconCreditCard },
  { value: 'balance', label: 'Add Balance', icon: IconWallet },
  { value: 'paymentHistory', label: 'Payment History', icon: IconReceipt },
];

export default function SettingsRoute() {
  const { tab: rawTab, subTab } = useParams();
  const navigate = useNavigate();
  const { data } = useUserInfo();
  // Default tab is profile (product rules §2).
  const tab = TABS.some((t) => t.value === rawTab) ? rawTab : 'profile';
  const go = (t: string, s?: string) => navigate(`/account/profile/settings/${t}${s ? `/${s}` : ''}`);
  if (!data) return <PageLoader />;
  return (
    <>
      <PageHeader title="Account settings" description={data.profile.email} />
      <Tabs value={tab} onChange={(v) => v && go(v)} keepMounted={false}>
        <Tabs.List mb="lg" style={{ flexWrap: 'nowrap', overflowX: 'auto', overflowY: 'hidden' }}>
          {TABS.map(({ value, label, icon: TabIcon }) => (
            <Tabs.Tab key={value} value={value} leftSection={<TabIcon size={16} />}>
              {label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="profile">
          <SubTabs
            current={subTab}
            onChange={(s) => go('profile', s)}
            tabs={{ profile: 'Profile Settings', password: 'Password', theme: 'Theme' }}
          >
            <Tabs.Panel value="profile">
              <ProfileForm info={data} />
            </Tabs.Panel>
            <Tabs.Panel value="password">
              <PasswordForm />
            </Tabs.Panel>
            <Tabs.Panel value="theme">
              <ThemePicker info={data} />
            </Tabs.Panel>
          </SubTabs>
        </Tabs.Panel>
        <Tabs.Panel value="apiKey">
          <ApiKeyPanel info={data} />
        </Tabs.Panel>
        <Tabs.Panel value="triggers">
          <TriggersPanel info={data} subTab={subTab} onSubTab={(s) => go('triggers', s)} webhooks={<WebhookPanel info={data} />} />
        </Tabs.Panel>
        <Tabs.Panel value="payment">
          <Suspense fallback={<PageLoader />}>
            <PaymentMethodPanel info={data} subTab={subTab} onSubTab={(s) => go('payment', s)} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="balance">
          <Suspense fallback={<PageLoader />}>
            <AddBalancePanel info={data} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="paymentHistory">
          <Suspense fallback={<PageLoader />}>
            <PaymentHistoryPanel subTab={subTab} onSubTab={(s) => go('paymentHistory', s)} />
          </Suspense>
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
