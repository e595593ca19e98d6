import { Alert } from '@mantine/core';
import { likelyLateForRecipient, type LikelyLateView } from '@shiptrail/contract';
import { IconClockExclamation } from '@tabler/icons-react';

/**
 * "Likely late" (decision 151) as the recipient is told it (decision 152): the carrier's own dates, or our
 * history. Nothing when the parcel is not likely late.
 */
export function LateNotice({ likelyLate }: { likelyLate: LikelyLateView | null | undefined }) {
  const late = likelyLateForRecipient(likelyLate ?? null);
  if (!late) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      radius="md"
      mb="lg"
      icon={<IconClockExclamation size={20} />}
      title={late.title}
      data-testid="track-likely-late"
      data-source={likelyLate?.source}
    >
      {late.detail}
    </Alert>
  );
}
