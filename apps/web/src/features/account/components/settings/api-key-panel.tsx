import { ActionIcon, Alert, Anchor, Button, Code, Group, Modal, Paper, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useClipboard, useDisclosure } from '@mantine/hooks';
import { API_TOKEN_HEADER, MSG, type UserInfo } from '@shiptrail/contract';
import { IconCopy, IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useGenerateToken } from '../../api/generate-token';
import { toastSuccess } from '../../../../lib/notify';

export function ApiKeyPanel({ info }: { info: UserInfo }) {
  const [shown, setShown] = useState(false);
  const [confirm, confirmModal] = useDisclosure(false);
  const clipboard = useClipboard();
  const regenerate = useGenerateToken();
  const key = regenerate.data?.payload?.token ?? info.profile.token;
  const masked = key ? `${key.slice(0, 4)}${'•'.repeat(Math.max(8, key.length - 8))}${key.slice(-4)}` : '';
  return (
    <Paper p="lg">
      <Stack>
        <Text size="sm">
          Use this key in the <Code>{API_TOKEN_HEADER}</Code> header to call the Shiptrail API from your own systems. Read the{' '}
          <Anchor component={Link} to="/developers" size="sm">
            API documentation
          </Anchor>
          .
        </Text>
        <Group gap="xs" align="flex-end">
          <TextInput
            label="API key"
            readOnly
            value={shown ? key : masked}
            style={{ flex: '1 1 260px' }}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            data-testid="api-key"
            rightSection={
              <ActionIcon
                variant="subtle"
                color="gray"
                onClick={() => setShown((s) => !s)}
                aria-label={shown ? 'Hide API key' : 'Show API key'}
              >
                {shown ? <IconEyeOff size={16} /> : <IconEye size={16} />}
              </ActionIcon>
            }
          />
          <Tooltip label="Copy">
            <Button
              variant="light"
              leftSection={<IconCopy size={16} />}
              onClick={() => {
                clipboard.copy(key);
                toastSuccess(MSG.apiKeyCopied);
              }}
            >
              Copy
            </Button>
          </Tooltip>
        </Group>
        <Alert color="yellow" variant="light" title="Keep it secret">
          Anyone with this key can read and change your trackings. If it leaks, regenerate it: the old key stops working at once.
        </Alert>
        <Group>
          <Button color="red" variant="light" leftSection={<IconRefresh size={16} />} onClick={confirmModal.open}>
            Regenerate API key
          </Button>
        </Group>
      </Stack>
      <Modal opened={confirm} onClose={confirmModal.close} title="Regenerate the API key?" size="sm">
        <Text size="sm" mb="lg">
          Integrations that use the current key will stop working until you give them the new one.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={confirmModal.close}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={regenerate.isPending}
            onClick={() => regenerate.mutate(undefined, { onSettled: confirmModal.close })}
          >
            Regenerate
          </Button>
        </Group>
      </Modal>
    </Paper>
  );
}
