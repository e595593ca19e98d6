// A small world of accounts for the fuzz and isolation tests: a person, two companies each with a courier and a
// shipment, and on company A every kind of record an id can point at (a tracking, a delivered shipment with its
// proof of delivery, a payment and its receipt, an alert, a notification, a member).
import { eq } from 'drizzle-orm';
import type { TestEnv } from '../helpers.ts';
import { call, signUp } from '../helpers.ts';
import { alerts, notifications, users } from '../../src/db/schema.ts';
import { company, courier, createShipment, readmeShipment, TINY_PNG } from '../shipments/fixtures.ts';
import { allTriggers, changeStatus, insertTracking } from '../notifications/fixtures.ts';

export interface Actor {
  name: string;
  /** The session token (web) and the API key: both are `sm-api-token` values. */
  session: string;
  apiKey: string;
  email: string;
  uid: string;
}

export interface World {
  person: Actor;
  companyA: Actor;
  courierA: Actor;
  companyB: Actor;
  courierB: Actor;
  /** Company A's records, by kind. */
  a: {
    /** A number A tracks that the probes also add to other accounts (each gets its own tracking of it). */
    trackingTid: string;
    /** A number only A tracks: the probes aimed at A's tracking use this one. */
    privateTid: string;
    shipmentTid: string;
    checkpointId: string;
    paymentId: string;
    alertId: string;
    notificationId: string;
    /** A pending courier invitation of A's. */
    invitationId: string;
    /** Values only company A's data holds: none may show in a reply to anybody else. */
    secrets: string[];
  };
  b: { shipmentTid: string };
}

const A_TRACKING = '1Z5R89390350075608';
const A_PRIVATE_TRACKING = '1Z5R89390350075626';

export async function buildWorld(env: TestEnv): Promise<World> {
  const person = await signUp(env.app);
  const a = await company(env.app, { company: 'Alpha Isolation Co' });
  const b = await company(env.app, { company: 'Beta Other Co' });
  const ca = await courier(env.app, a.session, { firstName: 'Alfa', lastName: 'Rider' });
  const cb = await courier(env.app, b.session, { firstName: 'Bravo', lastName: 'Rider' });
  const actor = (name: string, s: { session: string; apiKey: string; email: string; profile?: { uid: string }; uid?: string }): Actor => ({
    name,
    session: s.session,
    apiKey: s.apiKey,
    email: s.email,
    uid: s.uid ?? s.profile!.uid,
  });

  // A's tracking, shipment (assigned to its courier, delivered with a proof), payment, alert and notification.
  const added = await call(env.app, 'POST', '/v1/trackings/add', {
    token: a.apiKey,
    body: { tid: A_TRACKING, title: 'Alpha secret sofa' },
  });
  if (added.statusCode !== 201) throw new Error(`add failed: ${JSON.stringify(added.body)}`);
  const shipmentBody = {
    ...readmeShipment(ca.email),
    orderId: 'ALPHA-ORDER-7781',
    destination: { ...readmeShipment().destination, name: 'Alpha Customer', email: 'alpha.customer@alpha.example', phone: '+12135550187' },
  };
  const s = await createShipment(env.app, a.session, shipmentBody);
  const delivered = await call(env.app, 'POST', '/v1/shipment/update', {
    token: ca.session,
    body: {
      tid: s.tid,
      status: 'Delivered',
      location: 'Front door',
      lat: 34.03,
      long: -118.48,
      proof: { recipientName: 'Alpha Receiver', signature: TINY_PNG },
    },
  });
  if (delivered.statusCode !== 200) throw new Error(`deliver failed: ${JSON.stringify(delivered.body)}`);
  const checkpointId = String(delivered.body.payload.checkpoints[0].id);
  await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: 'fake-valid-visa-nonce' } });
  const topUp = await call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: 20 } });
  if (topUp.statusCode !== 200) throw new Error(`top-up failed: ${JSON.stringify(topUp.body)}`);
  const paymentId = String(topUp.body.payload.payment.id);

  const [aRow] = await env.ctx.db.select().from(users).where(eq(users.email, a.email));
  const [alert] = await env.ctx.db
    .insert(alerts)
    .values({ userId: aRow!.id, group: 'general', name: 'isolationProbe', level: 'info', message: 'Alpha private alert' })
    .returning({ id: alerts.id });
  await call(env.app, 'POST', '/v1/user/general/update', {
    token: a.session,
    body: { settings: { receiveNotification: { email: { triggers: allTriggers } } } },
  });
  const t = await insertTracking(env.ctx, aRow!.id, { tid: A_PRIVATE_TRACKING, title: 'Alpha second parcel' });
  await changeStatus(env.ctx, t.id, 'InTransit');
  const [n] = await env.ctx.db.select({ id: notifications.id }).from(notifications).where(eq(notifications.userId, aRow!.id));

  const sb = await createShipment(env.app, b.session, { ...readmeShipment(cb.email), orderId: 'BETA-ORDER-1' });
  const inv = await call(env.app, 'POST', '/v1/user/invitations/create', {
    token: a.session,
    body: { email: 'alpha.invitee@alpha.example', firstName: 'Alpha', lastName: 'Invitee' },
  });
  if (inv.statusCode !== 201) throw new Error(`invitation failed: ${JSON.stringify(inv.body)}`);

  return {
    person: actor('person', person),
    companyA: actor('company A', a),
    courierA: actor("company A's courier", ca),
    companyB: actor('company B', b),
    courierB: actor("company B's courier", cb),
    a: {
      trackingTid: A_TRACKING,
      privateTid: A_PRIVATE_TRACKING,
      shipmentTid: s.tid,
      checkpointId,
      paymentId,
      alertId: String(alert!.id),
      notificationId: String(n!.id),
      invitationId: inv.body.payload.id as string,
      secrets: [
        'alpha.invitee@alpha.example',
        inv.body.payload.id,
        a.email,
        a.profile.uid,
        a.apiKey,
        a.session,
        ca.email,
        ca.uid,
        ca.session,
        s.tid,
        'ALPHA-ORDER-7781',
        'alpha.customer@alpha.example',
        'Alpha Customer',
        'Alpha secret sofa',
        'Alpha second parcel',
        A_PRIVATE_TRACKING,
        'Alpha private alert',
        paymentId,
      ],
    },
    b: { shipmentTid: sb.tid },
  };
}
