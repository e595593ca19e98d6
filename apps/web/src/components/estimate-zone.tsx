import { Text } from '@mantine/core';
import { estimateZoneNote, type EstimatedDeliveryView } from '@shiptrail/contract';

/** Whose clock an estimate's hours are in, for this browser's reader (decision 163): null when it is the reader's. */
export const readerEstimateZone = (estimate: EstimatedDeliveryView): string | null =>
  estimateZoneNote(estimate, (d) => -d.getTimezoneOffset());

/**
 * "Times in local time at the destination (UTC−6)" under a carrier's window, when the reader's clock is another
 * (decisions 163 and 175): the public page, the tracking's panel and its card on a phone; nothing otherwise.
 */
export function EstimateZone({ estimate, testId, inText = false }: { estimate: EstimatedDeliveryView; testId: string; inText?: boolean }) {
  const zone = readerEstimateZone(estimate);
  if (!zone) return null;
  // Inside another paragraph (a panel's field) it is a span on its own line, not a nested <p>.
  return (
    <Text size="xs" c="dimmed" data-testid={testId} component={inText ? 'span' : 'p'} display="block">
      Times in {zone}
    </Text>
  );
}
