import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Loader, Stack } from '@mantine/core';
import type { Dropin } from 'braintree-web-drop-in';
import { requestPayload } from '../../../lib/api-client';
import { useAddCard } from '../api/billing';

/**
 * Braintree's drop-in card form, used when the server's gateway is Braintree. The drop-in collects the card in
 * Braintree's own frames and hands us a one-time nonce, which is all our server receives. The library is
 * imported here, on the card step only, so it never weighs on other pages.
 */
export function BraintreeDropIn({ onSaved }: { onSaved?: () => void }) {
  const container = useRef<HTMLDivElement>(null);
  const [instance, setInstance] = useState<Dropin | null>(null);
  const [error, setError] = useState<string | null>(null);
  const add = useAddCard();

  useEffect(() => {
    let live = true;
    let created: Dropin | null = null;
    (async () => {
      try {
        const [{ token }, dropin] = await Promise.all([
          requestPayload<{ token: string }>(`/v1/user/payment/token/generate?v=${Date.now()}`),
          import('braintree-web-drop-in'),
        ]);
        if (!live || !container.current) return;
        created = await dropin.default.create({
          authorization: token,
          container: container.current,
          card: { cardholderName: { required: true } },
        });
        if (live) setInstance(created);
        else void created.teardown();
      } catch (e) {
        if (live) setError(e instanceof Error ? e.message : 'The card form could not be loaded.');
      }
    })();
    return () => {
      live = false;
      if (created) void created.teardown().catch(() => {});
    };
  }, []);

  const save = async () => {
    if (!instance) return;
    try {
      const { nonce } = await instance.requestPaymentMethod();
      add.mutate({ paymentMethodToken: nonce }, { onSuccess: () => onSaved?.() });
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Please check the card details.');
    }
  };

  return (
    <Stack maw={520}>
      {error ? <Alert color="red">Could not load Braintree's card form: {error}</Alert> : null}
      <div ref={container} data-testid="braintree-drop-in" />
      {!instance && !error ? <Loader size="sm" /> : null}
      <Group>
        <Button onClick={() => void save()} disabled={!instance} loading={add.isPending}>
          Save card
        </Button>
      </Group>
    </Stack>
  );
}
