import { Box, Group, Image, Loader, Paper, Stack, Text } from '@mantine/core';
import { IconSignature } from '@tabler/icons-react';
import type { ShipmentCheckpoint } from '@shiptrail/contract';
import { useProof } from '../api/get-proof';

/** The recipient's name, signature and photo captured with a Delivered checkpoint. */
export function ProofOfDelivery({ tid, checkpoint }: { tid: string; checkpoint: ShipmentCheckpoint }) {
  const proof = checkpoint.proof;
  const images = useProof(tid, checkpoint.id);
  if (!proof) return null;
  return (
    <Paper withBorder p="sm" mt={6} radius="md" data-testid="proof-of-delivery">
      <Group gap={6} mb={4}>
        <IconSignature size={16} />
        <Text size="sm" fw={600}>
          Signed by {proof.recipientName}
        </Text>
      </Group>
      {images.isLoading ? (
        <Loader size="xs" />
      ) : images.isError ? (
        <Text size="xs" c="red">
          Could not load the proof images.
        </Text>
      ) : (
        <Stack gap="xs">
          {images.data?.signature && (
            <Box bg="white" style={{ border: '1px dashed var(--mantine-color-gray-4)', borderRadius: 8 }}>
              <Image src={images.data.signature} alt={`Signature of ${proof.recipientName}`} h={110} fit="contain" />
            </Box>
          )}
          {images.data?.photo && <Image src={images.data.photo} alt="Delivery photo" radius="sm" mah={260} fit="contain" />}
        </Stack>
      )}
    </Paper>
  );
}
