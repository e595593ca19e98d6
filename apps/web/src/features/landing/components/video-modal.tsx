import { ActionIcon, Box, Group, Modal, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconBell, IconPlayerPause, IconPlayerPlay, IconPlus, IconRoute, IconWebhook } from '@tabler/icons-react';
import { useEffect, useState } from 'react';

const SCENES = [
  {
    icon: IconPlus,
    title: 'Add a tracking number',
    text: 'Paste any UPS, USPS, FedEx or Canada Post number. Shiptrail detects the carrier for you.',
  },
  { icon: IconRoute, title: 'Watch it move', text: 'Every checkpoint lands in your dashboard, with status, location and time.' },
  { icon: IconBell, title: 'Tell the right people', text: 'Email and SMS alerts go to you or to your customer when the status changes.' },
  { icon: IconWebhook, title: 'Automate with webhooks', text: 'Signed webhooks and a REST API plug Shiptrail into your store or ERP.' },
];
const SCENE_MS = 3500;

/** The product tour: an animated walkthrough that plays like a short video, with pause and scene controls. */
export function VideoModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [scene, setScene] = useState(0);
  const [playing, setPlaying] = useState(true);
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    if (!opened) {
      setScene(0);
      setElapsed(0);
      setPlaying(true);
    }
  }, [opened]);
  useEffect(() => {
    if (!opened || !playing) return;
    const id = setInterval(() => {
      setElapsed((e) => {
        if (e + 100 >= SCENE_MS) {
          setScene((s) => (s + 1) % SCENES.length);
          return 0;
        }
        return e + 100;
      });
    }, 100);
    return () => clearInterval(id);
  }, [opened, playing]);
  const s = SCENES[scene]!;
  return (
    <Modal opened={opened} onClose={onClose} title="Shiptrail in one minute" size="lg">
      <Box
        p="xl"
        style={{
          borderRadius: 12,
          background: 'linear-gradient(135deg, var(--mantine-primary-color-filled), var(--mantine-color-dark-7))',
          color: 'white',
          minHeight: 240,
        }}
        aria-live="polite"
      >
        <Stack align="center" ta="center" gap="md" py="lg">
          <ThemeIcon size={64} radius="xl" variant="white">
            <s.icon size={34} />
          </ThemeIcon>
          <Title order={3} c="white">
            {scene + 1}. {s.title}
          </Title>
          <Text c="gray.2" maw={420}>
            {s.text}
          </Text>
        </Stack>
      </Box>
      <Group mt="md" gap="sm" wrap="nowrap">
        <ActionIcon variant="light" size="lg" onClick={() => setPlaying((p) => !p)} aria-label={playing ? 'Pause' : 'Play'}>
          {playing ? <IconPlayerPause size={18} /> : <IconPlayerPlay size={18} />}
        </ActionIcon>
        <Group gap={6} style={{ flex: 1 }} wrap="nowrap">
          {SCENES.map((sc, i) => (
            <Progress
              key={sc.title}
              value={i < scene ? 100 : i === scene ? (elapsed / SCENE_MS) * 100 : 0}
              style={{ flex: 1, cursor: 'pointer' }}
              onClick={() => {
                setScene(i);
                setElapsed(0);
              }}
              aria-label={`Scene ${i + 1}: ${sc.title}`}
              transitionDuration={100}
            />
          ))}
        </Group>
      </Group>
    </Modal>
  );
}
