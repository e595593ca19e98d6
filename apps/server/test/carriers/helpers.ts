import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCarrierClient, type CarrierConfig } from '../../src/modules/carriers/carriers.ts';
import { CREDS } from './fake-carrier.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..', '..', '..');
export const fixturesDir = path.join(here, 'fixtures');

/** One of our own carrier responses, by its path under fixtures/ (`fedex/fedex_delivered.json`); see fixtures/README.md. */
export function readFixture(name: string): string {
  return fs.readFileSync(path.join(fixturesDir, name), 'utf8');
}

/** A client whose four carriers all point at `url` with real-looking credentials; limits lifted unless given. */
export function clientFor(
  url: string,
  extra: Partial<CarrierConfig> = {},
  overrides: { rateLimit?: CarrierConfig['ups']['rateLimit'] } = {},
) {
  const rateLimit = overrides.rateLimit ?? false;
  const config: CarrierConfig = {
    ups: { baseUrl: url, clientId: CREDS.id, clientSecret: CREDS.secret, rateLimit },
    usps: { baseUrl: url, clientId: CREDS.id, clientSecret: CREDS.secret, rateLimit },
    fedex: { baseUrl: url, clientId: CREDS.id, clientSecret: CREDS.secret, rateLimit },
    canadapost: { baseUrl: url, username: CREDS.user, password: CREDS.pass, rateLimit },
    timeoutMs: 5000,
    ...extra,
  };
  return createCarrierClient(config);
}
