import { Anchor } from '@mantine/core';
import { Link } from 'react-router';

/** The way to the couriers page, which opens on inviting one: where a company makes the courier a shipment needs. */
export function CreateCourierLink() {
  return (
    <Anchor component={Link} to="/account/couriers?add=1" size="xs">
      Create a courier
    </Anchor>
  );
}

/** A courier select's description while the company has no courier (once its list has loaded), else none. */
export function noCouriersHint(couriers: readonly unknown[], loading: boolean) {
  if (couriers.length > 0 || loading) return undefined;
  return (
    <>
      You have no couriers yet. <CreateCourierLink />
    </>
  );
}
