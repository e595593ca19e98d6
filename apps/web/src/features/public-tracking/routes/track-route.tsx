import {
  Anchor,
  Box,
  Button,
  Center,
  Container,
  Grid,
  Group,
  Image,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { describeEstimate, MAP_DEFAULTS, MSG, type EstimatedDeliveryView, type PublicShipment } from '@shiptrail/contract';
import { IconMail, IconMapPin, IconPackageOff, IconPhone, IconTruck } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { usePublicTracking, type PublicBrand } from '../api/get-public-tracking';
import { hasBrand, safeBrandColor, safeBrandUrl } from '../components/brand';
import { LateNotice } from '../components/late-notice';
import { Logo } from '../../../components/logo';
import { StatusBadge } from '../../../components/status-badge';
import { CheckpointTimeline } from '../../../components/checkpoint-timeline';
import { LazyMap, type MapMarker } from '../../../components/map/lazy-map';
import { PageLoader } from '../../../components/page-loader';
import { EstimateZone } from '../../../components/estimate-zone';
import { courierName, formatDate, formatDateTime, maskEmail, maskPhone, statusLabel } from '../../../lib/format';

function Fact({ icon: Icon, label, value }: { icon: typeof IconMapPin; label: string; value: string }) {
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start">
      <ThemeIcon variant="light" size={36} radius="md">
        <Icon size={18} />
      </ThemeIcon>
      <div style={{ minWidth: 0 }}>
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          {label}
        </Text>
        <Text fw={500} style={{ wordBreak: 'break-word' }}>
          {value || '—'}
        </Text>
      </div>
    </Group>
  );
}

/**
 * The page's own frame, without Shiptrail's marketing navigation: a company's parcels and shipments carry the
 * company's name, logo and colour (its customers came from the company's mail); others a plain Shiptrail bar.
 */
function TrackFrame({ brand, children }: { brand?: PublicBrand | null; children: ReactNode }) {
  const branded = hasBrand(brand);
  const color = branded ? safeBrandColor(brand.color) : null;
  const logo = branded ? safeBrandUrl(brand.logo) : null;
  const site = branded ? safeBrandUrl(brand.url) : null;
  // The company's colour becomes the page's primary colour, so badges' neighbours, links and buttons follow it.
  const vars = color
    ? ({
        '--mantine-primary-color-filled': color,
        '--mantine-primary-color-light': `color-mix(in srgb, ${color} 12%, white)`,
        '--mantine-primary-color-light-color': color,
      } as React.CSSProperties)
    : undefined;
  return (
    <Box mih="100vh" bg="var(--mantine-color-gray-0)" style={vars} data-testid="track-frame" data-branded={branded || undefined}>
      <Box
        component="header"
        bg="white"
        style={{
          borderTop: `4px solid ${color ?? 'var(--mantine-primary-color-filled)'}`,
          borderBottom: '1px solid var(--mantine-color-default-border)',
        }}
      >
        <Container size="md" py="sm">
          {branded ? (
            <Group gap="sm" wrap="nowrap" data-testid="track-brand">
              {logo && <Image src={logo} alt="" h={36} w="auto" fit="contain" />}
              {site ? (
                <Anchor href={site} target="_blank" rel="noopener noreferrer" fw={800} fz="lg" c={color ?? undefined} underline="never">
                  {brand.name}
                </Anchor>
              ) : (
                <Text fw={800} fz="lg" c={color ?? undefined}>
                  {brand.name}
                </Text>
              )}
            </Group>
          ) : (
            <Group justify="space-between">
              <Anchor component={Link} to="/" underline="never" aria-label="Shiptrail home">
                <Logo size={28} />
              </Anchor>
            </Group>
          )}
        </Container>
      </Box>
      <Box component="main" id="main">
        {children}
      </Box>
      <Text component="footer" ta="center" size="xs" c="dimmed" py="lg">
        {branded ? (
          <>
            Tracking by{' '}
            <Anchor component={Link} to="/" size="xs" c="dimmed">
              Shiptrail
            </Anchor>
          </>
        ) : (
          <>
            <Anchor component={Link} to="/terms-of-service" size="xs" c="dimmed">
              Terms of service
            </Anchor>
            {' · '}
            <Anchor component={Link} to="/privacy-policy" size="xs" c="dimmed">
              Privacy policy
            </Anchor>
          </>
        )}
      </Text>
    </Box>
  );
}

/** No parcel behind the link (or not public): what to check, and the way to Shiptrail. */
function TrackNotFound() {
  return (
    <TrackFrame>
      <Center mih="60vh" p="xl">
        <Stack align="center" ta="center" gap="sm">
          <ThemeIcon size={64} radius="xl" variant="light" color="gray">
            <IconPackageOff size={34} />
          </ThemeIcon>
          <Title order={1} fz={28}>
            {MSG.shipmentNotFound}
          </Title>
          <Text c="dimmed" maw={420}>
            Check the link you received. If the shipment was just created, the carrier may not have reported it yet.
          </Text>
          <Button component={Link} to="/" variant="default">
            Go to Shiptrail
          </Button>
        </Stack>
      </Center>
    </TrackFrame>
  );
}

type TrackData = NonNullable<ReturnType<typeof usePublicTracking>['data']>;

/** The tracking number with when it comes (the day's plan window, the estimate or the expected date) and who signed. */
/**
 * The carrier's date and window, in the destination's clock as the carrier wrote it; when the reader's clock is
 * another, the line under it says whose clock it is (decision 163), since the checkpoints below are in the reader's.
 */
function Expected({ estimate }: { estimate: EstimatedDeliveryView }) {
  return (
    <>
      <Text size="md" fw={600} mt={4} data-testid="track-expected" data-source={estimate.source}>
        {describeEstimate(estimate)}
      </Text>
      <EstimateZone estimate={estimate} testId="track-expected-zone" />
    </>
  );
}

/** The reader's time zone as the browser names it ("Europe/Berlin"), or "local" when it names none. */
const readerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';

function TrackHeading({ data }: { data: TrackData }) {
  const planWindow = data.kind === 'shipment' ? data.window : null;
  const signedBy = data.kind === 'shipment' ? (data.signedBy ?? data.checkpoints.find((c) => c.signedBy)?.signedBy ?? null) : null;
  return (
    <Group justify="space-between" align="flex-start" mb="lg">
      <div>
        <Text size="sm" c="dimmed">
          Tracking number
        </Text>
        <Title order={1} fz={{ base: 22, sm: 28 }} style={{ wordBreak: 'break-all' }}>
          {data.tid}
        </Title>
        {planWindow ? (
          <Text size="md" fw={700} data-testid="track-window">
            Expected between {clock(planWindow.from)} and {clock(planWindow.to)}
            {new Date(planWindow.from).toDateString() === new Date().toDateString() ? ' today' : `, ${formatDate(planWindow.from)}`}
          </Text>
        ) : data.kind !== 'shipment' && data.estimatedDelivery ? (
          <Expected estimate={data.estimatedDelivery} />
        ) : (
          data.expected && (
            <Text size="sm" c="dimmed">
              Expected {formatDate(data.expected)}
            </Text>
          )
        )}
        {signedBy && (
          <Text size="sm" data-testid="track-signed-by">
            Signed for by <b>{signedBy}</b>
          </Text>
        )}
      </div>
      <StatusBadge status={data.status} size="xl" data-testid="track-status" data-status={data.status} />
    </Group>
  );
}

/** Where the recipient's notifications go, masked. */
function NotifyBox({ notify }: { notify: TrackData['notify'] }) {
  return (
    <Box p="md" bg="var(--mantine-color-gray-0)" style={{ borderRadius: 12 }}>
      <Title order={2} fz="sm" mb="sm">
        Notifications go to
      </Title>
      <Stack gap="xs">
        <Group gap={6} wrap="nowrap">
          <IconMail size={16} aria-label="Email" />
          <Text size="sm">{maskEmail(notify?.email) || 'No email'}</Text>
        </Group>
        <Group gap={6} wrap="nowrap">
          <IconPhone size={16} aria-label="Phone" />
          <Text size="sm">{maskPhone(notify?.phone) || 'No phone'}</Text>
        </Group>
      </Stack>
    </Box>
  );
}

export default function TrackRoute() {
  const { uid = '', tid = '' } = useParams();
  const { data, isLoading } = usePublicTracking(uid, tid);
  if (isLoading) return <PageLoader h="100vh" />;
  if (!data) return <TrackNotFound />;
  return (
    <TrackFrame brand={data.brand}>
      <Container size="md" py={{ base: 24, md: 48 }}>
        <Paper p={{ base: 'md', sm: 'xl' }} shadow="md" radius="xl">
          <TrackHeading data={data} />
          {data.kind !== 'shipment' && <LateNotice likelyLate={data.likelyLate} />}
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg" mb="xl">
            <Fact icon={IconTruck} label="Courier" value={data.courierName ?? courierName(data.courier)} />
            <Fact icon={IconMapPin} label="Origin" value={data.origin ?? ''} />
            <Fact icon={IconMapPin} label="Destination" value={data.destination ?? ''} />
          </SimpleGrid>
          {data.kind === 'shipment' && data.courierPosition ? (
            <CourierMap position={data.courierPosition} window={data.window} tid={data.tid} />
          ) : (
            data.kind === 'shipment' && <RouteMap checkpoints={data.checkpoints} tid={data.tid} />
          )}
          <Grid gap="xl">
            <Grid.Col span={{ base: 12, sm: 8 }}>
              <Group justify="space-between" align="baseline" gap="xs" mb="md">
                <Title order={2} fz="lg">
                  Checkpoints
                </Title>
                <Text size="xs" c="dimmed" data-testid="track-reader-zone">
                  Times in your time zone ({readerZone()})
                </Text>
              </Group>
              <CheckpointTimeline checkpoints={data.checkpoints} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 4 }}>
              <NotifyBox notify={data.notify} />
            </Grid.Col>
          </Grid>
        </Paper>
      </Container>
    </TrackFrame>
  );
}

/** The parcel's route through the checkpoints that carry a position (oldest first); nothing when none does. */
/** A time of day in the reader's clock (the day's plan window, decision 118). */
const clock = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

/**
 * While the shipment is out for delivery: where its courier last was (decision 128), with the plan's window.
 * The page's live stream refetches it at each shared position (at most every 15 s).
 */
function CourierMap({
  position,
  window: w,
  tid,
}: {
  position: NonNullable<PublicShipment['courierPosition']>;
  window: PublicShipment['window'];
  tid: string;
}) {
  return (
    <Box mb="xl" data-testid="track-courier-map" data-lat={position.lat} data-lng={position.lng}>
      <Group justify="space-between" align="baseline" mb="xs" gap="xs">
        <Title order={2} fz="lg">
          Your courier is on the way
        </Title>
        <Text size="sm" c="dimmed" data-testid="track-courier-at">
          Position at {clock(position.at)}
        </Text>
      </Group>
      {w && (
        <Text size="sm" mb="sm" data-testid="track-courier-window">
          Arriving between {clock(w.from)} and {clock(w.to)}
        </Text>
      )}
      <LazyMap
        label="Where your courier is"
        center={[position.lat, position.lng]}
        zoom={MAP_DEFAULTS.detailZoom}
        height={320}
        markers={[{ id: `${tid}-courier`, lat: position.lat, lng: position.lng, kind: 'courier', title: 'Your courier' }]}
      />
    </Box>
  );
}

function RouteMap({ checkpoints, tid }: { checkpoints: PublicShipment['checkpoints']; tid: string }) {
  const placed = [...checkpoints].reverse().filter((c) => c.lat != null && c.long != null);
  if (placed.length === 0) return null;
  const markers: MapMarker[] = placed.map((c, i) => ({
    id: `${tid}-${i}`,
    lat: c.lat!,
    lng: c.long!,
    kind: i === placed.length - 1 ? 'courier' : 'checkpoint',
    title: `${statusLabel(c.status)}${c.location ? `, ${c.location}` : ''} (${formatDateTime(c.time)})`,
    popup: (
      <div>
        <strong>{statusLabel(c.status)}</strong>
        <br />
        {c.location}
        <br />
        {formatDateTime(c.time)}
      </div>
    ),
  }));
  const last = placed[placed.length - 1]!;
  return (
    <Box mb="xl" data-testid="track-route-map">
      <Title order={2} fz="lg" mb="md">
        Route
      </Title>
      <LazyMap
        label="The parcel's route"
        center={[last.lat!, last.long!]}
        zoom={MAP_DEFAULTS.detailZoom}
        fitToMarkers={placed.length > 1}
        height={320}
        markers={markers}
        lines={placed.length > 1 ? [{ id: tid, points: placed.map((c) => [c.lat!, c.long!] as [number, number]) }] : []}
      />
    </Box>
  );
}
