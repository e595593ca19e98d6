import { List, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function PrivacyContent() {
  return (
    <div className="legal">
      <Text c="dimmed" size="sm" mb="md">
        Last updated: February 07, 2019
      </Text>
      <Text>
        This Privacy Policy explains what personal information Shiptrail collects, why we collect it, and the choices you have. It applies
        to our website, dashboard, API and notifications.
      </Text>
      <Title order={2} fz="xl">
        1. Information we collect
      </Title>
      <InformationWeCollect />
      <Title order={2} fz="xl">
        2. How we use it
      </Title>
      <Text>
        We use this information to provide the Service: to fetch tracking updates from carriers, to send the alerts you configure, to bill
        your prepaid balance, to answer support requests, to protect accounts against abuse, and to tell you about important changes. We do
        not sell personal information.
      </Text>
      <Title order={2} fz="xl">
        3. Sharing
      </Title>
      <Text>
        We share information only with the providers that help us run the Service (carriers for tracking lookups, email and SMS gateways,
        payment processors and hosting), under contracts that limit their use of it, and when the law requires us to.
      </Text>
      <Title order={2} fz="xl">
        4. Your customers
      </Title>
      <Text>
        When you add a customer's contact details to a shipment, you act as the controller of that information and confirm that you may use
        it to send them shipment updates. We process it on your behalf only.
      </Text>
      <Title order={2} fz="xl">
        5. Retention and security
      </Title>
      <Text>
        We keep account data while your account is open and for a limited period afterwards to meet legal and accounting duties. Passwords
        are stored with a memory-hard hash, traffic is encrypted in transit, and access to production data is restricted to the people who
        need it.
      </Text>
      <Title order={2} fz="xl">
        6. Children
      </Title>
      <Text>
        The Service is not directed to children. You must be at least 13 years old to use it, and we do not knowingly collect information
        from anyone younger.
      </Text>
      <Title order={2} fz="xl">
        7. Your choices
      </Title>
      <Text>
        You can view and correct your details in your account settings, turn alerts on or off at any time, and ask us to export or delete
        your data through our <Link to="/get-in-touch">contact page</Link>.
      </Text>
      <Title order={2} fz="xl">
        8. Changes to this policy
      </Title>
      <Text>
        We may update this policy. Material changes take effect 30 days after we notify you by email or in the dashboard; the date at the
        top shows the latest revision.
      </Text>
    </div>
  );
}

/** Section 1: what personal information we collect. */
function InformationWeCollect() {
  return (
    <List spacing={4} mb="sm">
      <List.Item>
        <b>Account details</b>: your name, email address, phone number, company details and time zone.
      </List.Item>
      <List.Item>
        <b>Shipment data</b>: tracking numbers and the details you attach to them, such as titles, order ids, customer names and the email
        addresses or phone numbers to notify.
      </List.Item>
      <List.Item>
        <b>Billing data</b>: payment history and the card details our payment provider returns to us (never the full card number).
      </List.Item>
      <List.Item>
        <b>Usage data</b>: log records of requests, devices and browsers, kept for security and troubleshooting.
      </List.Item>
    </List>
  );
}
