import { List, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/** Terms of service text, shown on /terms-of-service and in the sign-up modal. */
export function TermsContent() {
  return (
    <div className="legal">
      <Text>
        These Terms of Service ("Terms") govern your access to and use of Shiptrail, including our website, dashboard, REST API,
        notifications and related services (together, the "Service"). By creating an account or using the Service you agree to these Terms.
        If you use the Service on behalf of an organisation, you accept them for that organisation and confirm that you may bind it.
      </Text>
      <Title order={2} fz="xl">
        1. Eligibility and accounts
      </Title>
      <Text>
        You must be at least 13 years old to use the Service. You are responsible for the accuracy of the information you give us, for
        keeping your password and API key confidential, and for everything that happens under your account. Tell us at once if you believe
        your account or key has been used without your permission; you can regenerate your API key at any time from your account settings.
      </Text>
      <Title order={2} fz="xl">
        2. The Service
      </Title>
      <Text>
        Shiptrail retrieves tracking information published by carriers such as UPS, USPS, FedEx and Canada Post and presents it to you, and
        can notify you or your customers when it changes. Carrier data is provided by third parties: we do not guarantee that it is
        complete, timely or accurate, and we are not responsible for the carriage, delay or loss of any shipment.
      </Text>
      <Title order={2} fz="xl">
        3. Prepaid balance and fees
      </Title>
      <Text>
        The Service is paid as you go from a prepaid balance. Prices are shown on our pricing page and are charged as the Service is used
        (for example, per tracking number added and per SMS sent). Promotional credit, such as the sign-up bonus, has no cash value and
        cannot be transferred. Balances are not refundable except where the law requires it. When your balance runs out, paid features stop
        until you add funds; if you enable automatic recharge, you authorise us to charge your saved payment method under the amounts you
        choose.
      </Text>
      <Title order={2} fz="xl">
        4. Acceptable use
      </Title>
      <Text>You agree not to:</Text>
      <AcceptableUse />
      <Title order={2} fz="xl">
        5. Your data
      </Title>
      <Text>
        You keep all rights in the data you put into the Service. You grant us the licence we need to host, process and transmit it to
        provide the Service. How we handle personal information is described in our <Link to="/privacy-policy">Privacy Policy</Link>.
      </Text>
      <Title order={2} fz="xl">
        6. Availability and changes
      </Title>
      <Text>
        We work to keep the Service available but do not promise that it will be uninterrupted or error free. We may change or discontinue
        features. We may change these Terms; material changes take effect 30 days after we notify you by email or in the dashboard. If you
        keep using the Service after that date, you accept the new Terms; if you do not agree, you may close your account before then.
      </Text>
      <Title order={2} fz="xl">
        7. Termination
      </Title>
      <Text>
        You may stop using the Service and close your account at any time. We may suspend or terminate accounts that breach these Terms or
        put the Service or other users at risk, giving notice where reasonably possible.
      </Text>
      <Title order={2} fz="xl">
        8. Liability
      </Title>
      <Text>
        To the extent permitted by law, the Service is provided "as is", and our total liability for any claim relating to it is limited to
        the amount you paid us in the twelve months before the claim. We are not liable for indirect or consequential losses, lost profits
        or lost data.
      </Text>
      <Title order={2} fz="xl">
        9. Contact
      </Title>
      <Text>
        Questions about these Terms are welcome through our <Link to="/get-in-touch">contact page</Link>.
      </Text>
    </div>
  );
}

/** What you agree not to do with the Service. */
function AcceptableUse() {
  return (
    <List spacing={4} mb="sm">
      <List.Item>track shipments you have no legitimate interest in, or use the Service to monitor people unlawfully;</List.Item>
      <List.Item>send notifications to people who have not agreed to receive them, or send spam;</List.Item>
      <List.Item>probe, overload or interfere with the Service, or get around rate limits and access controls;</List.Item>
      <List.Item>resell the Service or carrier data except as part of your own product for your own customers.</List.Item>
    </List>
  );
}
