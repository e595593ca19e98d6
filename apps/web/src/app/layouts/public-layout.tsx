import { Anchor, Box, Burger, Button, Container, Divider, Group, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense, useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { Logo } from '../../components/logo';
import { useSession } from '../../lib/session';
import classes from './public-layout.module.css';

const MobileNavDrawer = lazy(() => import('./mobile-nav-drawer'));

const LINKS = [
  { label: 'Home', to: '/' },
  { label: 'Features', to: '/#features' },
  { label: 'Pricing', to: '/#pricing' },
  { label: 'Get in touch', to: '/get-in-touch' },
  { label: 'Developers', to: '/developers' },
];

function isActive(to: string, pathname: string, hash: string) {
  if (to.includes('#')) return pathname === '/' && hash === to.slice(1);
  if (to === '/') return pathname === '/' && (hash === '' || hash.startsWith('#tab'));
  return pathname.startsWith(to);
}

const FOOTER_COLUMNS = [
  {
    title: 'Product',
    links: [
      { label: 'Features', to: '/#features' },
      { label: 'Pricing', to: '/#pricing' },
      { label: 'API documentation', to: '/developers' },
    ],
  },
  {
    title: 'Company',
    links: [
      { label: 'Get in touch', to: '/get-in-touch' },
      { label: 'Terms of service', to: '/terms-of-service' },
      { label: 'Privacy policy', to: '/privacy-policy' },
    ],
  },
];

/** The footer: what Shiptrail is, the product and company links, the notice. */
function Footer() {
  return (
    <footer className={classes.footer}>
      <Container size="lg" py="xl">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xl">
          <Stack gap="xs">
            <Logo />
            <Text size="sm" c="dimmed" maw={280}>
              Parcel tracking for UPS, USPS, FedEx and Canada Post, with alerts by email, SMS and webhooks.
            </Text>
          </Stack>
          {FOOTER_COLUMNS.map((column) => (
            <Stack key={column.title} gap={6}>
              <Text fw={600} size="sm">
                {column.title}
              </Text>
              {column.links.map((link) => (
                <Anchor key={link.to} component={Link} to={link.to} size="sm" c="dimmed">
                  {link.label}
                </Anchor>
              ))}
            </Stack>
          ))}
        </SimpleGrid>
        <Divider my="lg" />
        <Text size="xs" c="dimmed">
          © 2018 Shiptrail. All rights reserved.
        </Text>
      </Container>
    </footer>
  );
}

/** The way in: the dashboard when signed in, else log in and sign up. */
function SessionButtons({ signedIn, onClick }: { signedIn: boolean; onClick: () => void }) {
  return signedIn ? (
    <Button component={Link} to="/account/dashboard" onClick={onClick}>
      My dashboard
    </Button>
  ) : (
    <>
      <Button component={Link} to="/#tab-login" variant="subtle" onClick={onClick}>
        LOGIN
      </Button>
      <Button component={Link} to="/#tab-register" onClick={onClick}>
        START FREE
      </Button>
    </>
  );
}

export function PublicLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  // The drawer's code loads on the first tap and stays mounted after it, so closing still animates.
  const [drawerWanted, setDrawerWanted] = useState(false);
  const { pathname, hash } = useLocation();
  const session = useSession();

  const links = LINKS.map((l) => (
    <Anchor
      key={l.label}
      component={NavLink}
      to={l.to}
      className={classes.link}
      data-active={isActive(l.to, pathname, hash) || undefined}
      onClick={close}
      underline="never"
    >
      {l.label}
    </Anchor>
  ));

  const actions = <SessionButtons signedIn={!!session} onClick={close} />;

  return (
    <Box className={classes.shell}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className={classes.header}>
        <Container size="lg" h="100%">
          <Group h="100%" justify="space-between" wrap="nowrap">
            <UnstyledButton component={Link} to="/" aria-label="Shiptrail home">
              <Logo />
            </UnstyledButton>
            <Group gap={4} visibleFrom="md" component="nav" aria-label="Main">
              {links}
            </Group>
            <Group gap="xs" visibleFrom="md">
              {actions}
            </Group>
            <Burger
              opened={opened}
              onClick={() => {
                setDrawerWanted(true);
                toggle();
              }}
              hiddenFrom="md"
              aria-label="Toggle navigation"
            />
          </Group>
        </Container>
      </header>
      {drawerWanted && (
        <Suspense fallback={null}>
          <MobileNavDrawer opened={opened} onClose={close}>
            <Stack gap="xs" component="nav" aria-label="Mobile">
              {links}
              <Divider my="sm" />
              <Stack gap="xs">{actions}</Stack>
            </Stack>
          </MobileNavDrawer>
        </Suspense>
      )}
      <main id="main" className={classes.main}>
        <Outlet />
      </main>
      <Footer />
    </Box>
  );
}
