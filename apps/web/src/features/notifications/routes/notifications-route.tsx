import { Anchor, Paper, SegmentedControl, Text } from '@mantine/core';
import type { NotificationLogItem } from '@shiptrail/contract';
import { useState } from 'react';
import { Link } from 'react-router';
import { DeliveryLog } from '../components/delivery-log';
import { PageHeader } from '../../../components/page-header';

export default function NotificationsRoute() {
  const [channel, setChannel] = useState<'all' | NotificationLogItem['channel']>('all');
  return (
    <>
      <PageHeader
        title="Notification log"
        description={
          <>
            Every email, SMS and webhook we sent for your trackings. Choose what triggers them in{' '}
            <Anchor component={Link} to="/account/profile/settings/triggers" size="sm">
              notification settings
            </Anchor>
            .
          </>
        }
        actions={
          <SegmentedControl
            aria-label="Channel"
            value={channel}
            onChange={(v) => setChannel(v as typeof channel)}
            data={[
              { value: 'all', label: 'All' },
              { value: 'email', label: 'Email' },
              { value: 'sms', label: 'SMS' },
              { value: 'webhook', label: 'Webhook' },
            ]}
          />
        }
      />
      <Paper p="md">
        <DeliveryLog channel={channel === 'all' ? undefined : channel} />
      </Paper>
      <Text size="xs" c="dimmed" mt="sm">
        Webhooks are retried with backoff for about three days. Each delivery carries a stable webhook-id you can deduplicate on.
      </Text>
    </>
  );
}
