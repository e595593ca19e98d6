import { Box, Button, FileButton, Group, Image, Paper, Stack, Text, Title } from '@mantine/core';
import { LOGO_LIMITS, MSG, type UserInfo } from '@shiptrail/contract';
import { useQueryClient } from '@tanstack/react-query';
import { IconPhotoUp, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { request } from '../../../../lib/api-client';
import { toastSuccess } from '../../../../lib/notify';
import { useApiMutation } from '../../../../lib/use-api-mutation';
import { userInfoKey } from '../../../../lib/user-info';

const uploadLogo = (image: string) => request<{ logo: string }>('/v1/user/general/logo', { body: { image } });
const removeLogo = () => request<{ logo: string }>('/v1/user/general/logo/remove', { body: {} });
const tooLarge = `The logo is too large (at most ${LOGO_LIMITS.maxBytes / 1024 / 1024} MB)`;

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(new Error(MSG.logoUnreadable));
    r.readAsDataURL(file);
  });

/** The logo as customers see it, or "No logo yet". */
function LogoPreview({ src, company }: { src: string; company: string }) {
  return (
    <Paper withBorder p="xs" w={180} h={90} style={{ display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
      {src ? (
        <Image src={src} alt={`${company || 'Company'} logo`} fit="contain" mah={72} maw={160} data-testid="company-logo" />
      ) : (
        <Text size="xs" c="dimmed">
          No logo yet
        </Text>
      )}
    </Paper>
  );
}

/**
 * The company's logo on its public pages and customer mails: a PNG or JPEG uploaded here, checked and re-encoded
 * by the server (at most 512 px a side) and served from this site (decision 099).
 */
export function LogoField({ info }: { info: UserInfo }) {
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const done = (message: string, title: string) => (env: { message: string }) => {
    toastSuccess(env.message || message, title);
    setError(null);
    void qc.invalidateQueries({ queryKey: userInfoKey });
  };
  const upload = useApiMutation(uploadLogo, {
    toast: false,
    onSuccess: done('Logo saved', 'Logo saved'),
    onError: (e) => setError(e.message),
  });
  const remove = useApiMutation(removeLogo, {
    toast: false,
    onSuccess: done('Logo removed', 'Logo removed'),
    onError: (e) => setError(e.message),
  });
  const logo = info.profile.image;
  // Only our own uploads and web addresses are shown (never a data: or javascript: URL).
  const shown = logo.startsWith('/v1/brand/logo/') || /^https?:\/\//i.test(logo) ? logo : '';

  const pick = async (file: File | null) => {
    if (!file) return;
    setError(null);
    if (file.type !== 'image/png' && file.type !== 'image/jpeg') return setError(MSG.logoUnreadable);
    if (file.size > LOGO_LIMITS.maxBytes) return setError(tooLarge);
    try {
      upload.mutate(await readAsDataUrl(file));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Box
      mt="xl"
      pt="lg"
      aria-label="Company logo"
      component="section"
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
    >
      <Stack gap="sm">
        <Title order={4}>Company logo</Title>
        <Text size="sm" c="dimmed">
          Shown to your customers on their tracking page and in their emails. A PNG or JPEG up to 2 MB; it is resized to at most 512 px a
          side.
        </Text>
        <Group align="center" gap="md">
          <LogoPreview src={shown} company={info.profile.company} />
          <Stack gap="xs">
            <FileButton onChange={pick} accept="image/png,image/jpeg">
              {(props) => (
                <Button {...props} variant="default" leftSection={<IconPhotoUp size={16} />} loading={upload.isPending}>
                  {shown ? 'Replace logo' : 'Upload logo'}
                </Button>
              )}
            </FileButton>
            {shown && (
              <Button
                variant="subtle"
                color="red"
                leftSection={<IconTrash size={16} />}
                loading={remove.isPending}
                onClick={() => remove.mutate(undefined)}
              >
                Remove logo
              </Button>
            )}
          </Stack>
        </Group>
        {error && (
          <Text size="sm" c="red" role="alert" data-testid="logo-error">
            {error}
          </Text>
        )}
      </Stack>
    </Box>
  );
}
