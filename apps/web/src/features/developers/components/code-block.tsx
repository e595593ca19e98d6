import { ActionIcon, Box, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <Box pos="relative">
      <Box
        component="pre"
        aria-label={label}
        tabIndex={0}
        m={0}
        p="md"
        style={{
          background: 'var(--mantine-color-dark-8)',
          color: 'var(--mantine-color-gray-1)',
          borderRadius: 'var(--mantine-radius-md)',
          overflowX: 'auto',
          fontSize: 13,
          lineHeight: 1.6,
        }}
      >
        <code>{code}</code>
      </Box>
      <CopyButton value={code} timeout={1500}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
            <ActionIcon variant="subtle" color="gray" pos="absolute" top={8} right={8} onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Box>
  );
}
