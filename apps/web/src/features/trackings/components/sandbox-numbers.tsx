import { Button, Group, Text } from '@mantine/core';
import { SANDBOX_EXAMPLES, type CourierSlug } from '@shiptrail/contract';
import type { CourierInfo } from '../api/get-couriers';

/**
 * On a deployment whose carriers run on the built-in sandbox (GET /v1/couriers says `sandbox: true`), numbers
 * that move, one per such carrier: a newcomer's first tracking goes from Info Received to Delivered in minutes,
 * instead of a made-up number that stays Pending. Carriers with real credentials offer none.
 */
export function SandboxNumbers({ couriers, onPick }: { couriers: CourierInfo[]; onPick: (tid: string, courier: string) => void }) {
  const sandboxed = couriers.filter((c) => c.sandbox && c.courier in SANDBOX_EXAMPLES);
  if (!sandboxed.length) return null;
  return (
    <div data-testid="sandbox-numbers">
      <Text size="xs" c="dimmed" mb={4}>
        Carrier sandbox: try a number that moves (delivered in a few minutes)
      </Text>
      <Group gap={6}>
        {sandboxed.map((c) => {
          const tid = SANDBOX_EXAMPLES[c.courier as CourierSlug].delivered;
          return (
            <Button
              key={c.courier}
              size="compact-xs"
              variant="light"
              onClick={() => onPick(tid, c.courier)}
              aria-label={`Use the ${c.name} sandbox number ${tid}`}
            >
              {c.name}
            </Button>
          );
        })}
      </Group>
    </div>
  );
}
