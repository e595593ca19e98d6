import { Box, Container, Grid, List, Paper, Stack, Tabs, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useEffect } from 'react';
import { LoginForm } from './login-form';
import { RegisterForm } from './register-form';
import { RecoverForm } from './recover-form';
import { money } from '../../../lib/format';

export type AuthTab = 'login' | 'register' | 'recover';

export function AuthSection(props: {
  tab: AuthTab;
  onTab: (t: AuthTab) => void;
  promocode?: string;
  referrer?: string;
  signupBonus: number;
  onShowTerms: () => void;
  onReady?: () => void;
}) {
  const { tab, onTab, onReady } = props;
  // The section loads lazily: tell the page so a #tab-login / #tab-register hash can scroll to it now.
  useEffect(() => onReady?.(), [onReady]);
  return (
    <Box component="section" aria-labelledby="auth-title" py={{ base: 56, md: 96 }} pos="relative">
      <Container size="lg">
        <Grid gap={{ base: 32, md: 64 }} align="center">
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack gap="md">
              <Title id="auth-title" order={2} fz={{ base: 28, sm: 34 }}>
                Start tracking in under a minute
              </Title>
              <Text c="dimmed">Create an account and get {money(props.signupBonus)} of free credit. No credit card needed.</Text>
              <List
                spacing="sm"
                icon={
                  <ThemeIcon size={22} radius="xl" variant="light">
                    <IconCheck size={14} />
                  </ThemeIcon>
                }
              >
                <List.Item>Carrier detected automatically</List.Item>
                <List.Item>Alerts by email, SMS and webhook</List.Item>
                <List.Item>An API key from day one</List.Item>
              </List>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 7 }} pos="relative">
            {/* The hash targets of product rules §2 (#tab-login, #tab-register) land on the form itself, also on phones. */}
            <span id="tab-login" style={{ position: 'absolute', top: 0 }} />
            <span id="tab-register" style={{ position: 'absolute', top: 0 }} />
            <Paper p={{ base: 'md', sm: 'xl' }} shadow="lg" radius="xl">
              <Tabs value={tab} onChange={(v) => v && onTab(v as AuthTab)} keepMounted={false}>
                <Tabs.List grow mb="lg">
                  <Tabs.Tab value="login">Log in</Tabs.Tab>
                  <Tabs.Tab value="register">Register</Tabs.Tab>
                  <Tabs.Tab value="recover">Recover</Tabs.Tab>
                </Tabs.List>
                <Tabs.Panel value="login">
                  <LoginForm onRecover={() => onTab('recover')} />
                </Tabs.Panel>
                <Tabs.Panel value="register">
                  <RegisterForm promocode={props.promocode} referrer={props.referrer} onShowTerms={props.onShowTerms} />
                </Tabs.Panel>
                <Tabs.Panel value="recover">
                  <RecoverForm onBack={() => onTab('login')} />
                </Tabs.Panel>
              </Tabs>
            </Paper>
          </Grid.Col>
        </Grid>
      </Container>
    </Box>
  );
}
