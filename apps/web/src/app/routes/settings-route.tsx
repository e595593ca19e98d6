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

// The billing screens are their own chunk, loaded when a billing tab opens.
const billing = () => import('../../features/billing/components/payment-panels');
const PaymentMethodPanel = lazy(() => billing().then((m) => ({ default: m.PaymentMethodPanel })));
const AddBalancePanel = lazy(() => billing().then((m) => ({ default: m.AddBalancePanel })));
const PaymentHistoryPanel = lazy(() => billing().then((m) => ({ default: m.PaymentHistoryPanel })));

const TABS = ['profile', 'apiKey', 'triggers', 'payment', 'balance', 'paymentHistory'] as const;
type Tab = (typeof TABS)[number];
const PROFILE_SUBTABS = ['profile', 'password', 'theme'] as const;

export default function SettingsRoute() {
  const { tab: rawTab, subTab } = useParams();
  const navigate = useNavigate();
  const { data } = useUserInfo();
  // Default tab is profile (product rules §2).
  const tab: Tab = (TABS as readonly string[]).includes(rawTab ?? '') ? (rawTab as Tab) : 'profile';
  const go = (t: string, s?: string) => navigate(`/account/profile/settings/${t}${s ? `/${s}` : ''}`);
  if (!data) return <PageLoader />;
  const profileSub = (PROFILE_SUBTABS as readonly string[]).includes(subTab ?? '') ? subTab! : 'profile';
  return (
    <>
      <PageHeader title="Account settings" description={data.profile.email} />
      <Tabs value={tab} onChange={(v) => v && go(v)} keepMounted={false}>
        <Tabs.List mb="lg" style={{ flexWrap: 'nowrap', overflowX: 'auto', overflowY: 'hidden' }}>
          <Tabs.Tab value="profile" leftSection={<IconUser size={16} />}>
            My Account
          </Tabs.Tab>
          <Tabs.Tab value="apiKey" leftSection={<IconKey size={16} />}>
            API key
          </Tabs.Tab>
          <Tabs.Tab value="triggers" leftSection={<IconBell size={16} />}>
            Notification settings
          </Tabs.Tab>
          <Tabs.Tab value="payment" leftSection={<IconCreditCard size={16} />}>
            Payment Method
          </Tabs.Tab>
          <Tabs.Tab value="balance" leftSection={<IconWallet size={16} />}>
            Add Balance
          </Tabs.Tab>
          <Tabs.Tab value="paymentHistory" leftSection={<IconReceipt size={16} />}>
            Payment History
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="profile">
          <Tabs value={profileSub} onChange={(v) => v && go('profile', v)} variant="pills" keepMounted={false}>
            <Tabs.List mb="md">
              <Tabs.Tab value="profile">Profile Settings</Tabs.Tab>
              <Tabs.Tab value="password">Password</Tabs.Tab>
              <Tabs.Tab value="theme">Theme</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="profile">
              <ProfileForm info={data} />
            </Tabs.Panel>
            <Tabs.Panel value="password">
              <PasswordForm />
            </Tabs.Panel>
            <Tabs.Panel value="theme">
              <ThemePicker info={data} />
            </Tabs.Panel>
          </Tabs>
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
