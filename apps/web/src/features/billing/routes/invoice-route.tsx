import { Alert, Button, Card, Divider, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconCopy, IconDownload, IconPrinter } from '@tabler/icons-react';
import type { Receipt } from '@shiptrail/contract';
import { Link, useParams } from 'react-router';
import { formatDate } from '../../../lib/format';
import { toastError, toastSuccess } from '../../../lib/notify';
import { downloadReceiptPdf, useReceipt } from '../api/billing';

/** The receipt as plain text, for "Copy this invoice". */
function receiptText(r: Receipt): string {
  return [
    `Payment Receipt ${r.id}`,
    `Date ${formatDate(r.createdAt)}`,
    `Seller: ${r.seller.name} ${r.seller.email}`,
    `Billed to: ${[r.buyer.name, r.buyer.company, r.buyer.email, r.buyer.invoiceExtraInfo].filter(Boolean).join(', ')}`,
    ...r.lineItems.map((l) => `${l.description} × ${l.quantity}: ${l.total} ${r.currencyIsoCode}`),
    `Paid with ${r.creditCard.cardType} ${r.creditCard.maskedNumber}`,
    `Total ${r.total} ${r.currencyIsoCode}`,
  ].join('\n');
}

/** The receipt itself: seller, number and date, who was billed, the card, the lines and the total. */
function ReceiptCard({ r }: { r: Receipt }) {
  return (
    <Card withBorder p="xl" data-testid="receipt">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2} c="blue">
            {r.seller.name}
          </Title>
          <Text size="sm" c="dimmed">
            {r.seller.email}
          </Text>
          <Text size="sm" c="dimmed">
            {r.seller.url}
          </Text>
        </div>
        <div style={{ textAlign: 'right' }}>
          <Title order={3}>Payment Receipt</Title>
          <Text size="sm">Receipt no. {r.id}</Text>
          <Text size="sm">Date {formatDate(r.createdAt)}</Text>
        </div>
      </Group>
      <Divider my="lg" />
      <SimpleGrid cols={2}>
        <div>
          <Text fw={700}>Billed to</Text>
          {[r.buyer.name, r.buyer.company, r.buyer.email, ...r.buyer.invoiceExtraInfo.split('\n')]
            .filter((l) => l.trim())
            .map((l) => (
              <Text key={l} size="sm">
                {l}
              </Text>
            ))}
        </div>
        <div>
          <Text fw={700}>Paid with</Text>
          <Text size="sm">
            {r.creditCard.cardType} {r.creditCard.maskedNumber}
          </Text>
          <Text size="sm">{r.creditCard.cardholderName}</Text>
        </div>
      </SimpleGrid>
      <Table mt="lg">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Description</Table.Th>
            <Table.Th ta="right">Quantity</Table.Th>
            <Table.Th ta="right">Amount</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {r.lineItems.map((l) => (
            <Table.Tr key={l.description}>
              <Table.Td>{l.description}</Table.Td>
              <Table.Td ta="right">{l.quantity}</Table.Td>
              <Table.Td ta="right">
                {l.total} {r.currencyIsoCode}
              </Table.Td>
            </Table.Tr>
          ))}
          <Table.Tr fw={700}>
            <Table.Td colSpan={2} ta="right">
              Total paid
            </Table.Td>
            <Table.Td ta="right" data-testid="receipt-total">
              {r.total} {r.currencyIsoCode}
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** /account/profile/invoice/:invoiceId: the Payment Receipt, Save as PDF (invoice.pdf), Print, Back, Copy. */
export default function InvoiceRoute() {
  const { invoiceId = '' } = useParams();
  const { data: r, error } = useReceipt(invoiceId);
  const back = (
    <Button
      component={Link}
      to="/account/profile/settings/paymentHistory"
      variant="default"
      leftSection={<IconArrowLeft size={16} />}
      className="no-print"
    >
      Back
    </Button>
  );
  if (error)
    return (
      <Stack>
        {back}
        <Alert color="red">{(error as Error).message}</Alert>
      </Stack>
    );
  if (!r) return null;
  const text = receiptText(r);
  return (
    <Stack>
      <style>{'@media print { .no-print { display: none !important; } }'}</style>
      <Group className="no-print">
        {back}
        <Button leftSection={<IconDownload size={16} />} onClick={() => downloadReceiptPdf(r.id).catch((e: Error) => toastError(e))}>
          Save as PDF
        </Button>
        <Button variant="light" leftSection={<IconPrinter size={16} />} onClick={() => window.print()}>
          Print
        </Button>
        <Button
          variant="subtle"
          leftSection={<IconCopy size={16} />}
          onClick={() =>
            navigator.clipboard.writeText(text).then(
              () => toastSuccess('Receipt copied to the clipboard'),
              () => toastError(new Error('Could not copy')),
            )
          }
        >
          Copy this invoice
        </Button>
      </Group>
      <ReceiptCard r={r} />
    </Stack>
  );
}
