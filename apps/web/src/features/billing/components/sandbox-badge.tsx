import { Badge, Tooltip } from '@mantine/core';

export function SandboxBadge() {
  return (
    <Tooltip label="Payments go to the built-in sandbox gateway: no real money moves. Use Braintree's test cards, e.g. 4111 1111 1111 1111.">
      <Badge color="orange" variant="light" data-testid="sandbox-badge">
        sandbox
      </Badge>
    </Tooltip>
  );
}
