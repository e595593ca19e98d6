import type { FastifyBaseLogger } from 'fastify';
import type { DeliveryPredictions } from './edd/history.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Queue } from './jobs/queue.ts';
import type { Bus } from './lib/bus.ts';
import type { Mailer } from './modules/mail/mailer.ts';
import type { CarrierRuntime, JourneyStartLookup } from './modules/carriers/carriers.service.ts';
import type { SmsGateway } from './modules/sms/sms.service.ts';
import type { PaymentGateway } from './modules/billing/gateway.ts';
import type { Faults, Tuning } from './modules/notifications/tuning.ts';
import type { Geocoder } from './modules/geo/geocoder.ts';
import type { UserRow } from './modules/accounts/accounts.repository.ts';

/**
 * What modules get: the parsed config and the shared resources. Built once in main.ts (or by a test)
 * and passed to buildApp and to the worker, so both roles use the same wiring.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  queue: Queue;
  /** The cross-process signal (LISTEN/NOTIFY): live streams, and anything else that must hear of a commit. */
  bus: Bus;
  mailer: Mailer;
  log: FastifyBaseLogger;
  /** Clock for rules that depend on time (expiry, refresh schedule); tests may move it. */
  now: () => Date;
  /** Per-feature resources, set up at start-up; each feature declares its slot here. */
  resources: FeatureResources;
}

export interface FeatureResources {
  /** The carrier client and, for carriers without credentials, the built-in sandbox. */
  carriers?: CarrierRuntime;
  /** Where each sandbox journey started, read back from the stored checkpoints (set before the carriers). */
  sandboxJourneyStart?: JourneyStartLookup;
  sms?: SmsGateway;
  /** The card gateway: Braintree when configured, else the built-in sandbox. */
  payments?: PaymentGateway;
  /** The worker role's refresh scheduler loop. */
  refreshScheduler?: { stop(): Promise<void> };
  /** The worker role's carrier push subscription loop (trackings/push.ts). */
  pushSubscriptions?: { stop(): Promise<void> };
  /** The worker role's automatic recharge loop. */
  rechargeLoop?: { stop(): Promise<void> };
  /** The worker role's vacuum loop on the embedded database (db/maintenance.ts). */
  embeddedVacuum?: { stop(): Promise<void> };
  /** How often a refresh batch renews its lease (LEASE_RENEW_MS unless set; tests shorten it, decision 160). */
  refreshLeaseRenewMs?: number;
  /** Shorter delivery timings (tests). */
  notificationTuning?: Partial<Tuning>;
  /** Fault injection around provider calls (tests). */
  notificationFaults?: Faults;
  /** The HTTP geocoder when GEOCODER_URL is set (made on first use; it holds the rate limit and the cache). */
  geocoder?: Geocoder;
  /**
   * Offer an unclaimed courier account its claim link (members/invitations.service.ts offerClaim). Accounts calls
   * it at sign-up, Google sign-in and recovery; members provides it (set in buildApp), so accounts never imports
   * members, which builds on accounts.
   */
  offerCourierClaim?: (ctx: AppContext, member: UserRow, opts: { force: boolean }) => Promise<void>;
  /**
   * The delivery-date predictor learned from the platform's delivered parcels (edd/history.ts, decision 122): the
   * refresh engine fills a predicted estimate from it when the carrier gives none. Set by bootstrap.
   */
  deliveryPredictions?: DeliveryPredictions;
}
