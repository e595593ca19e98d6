// jkeen/tracking_number_data's test numbers (v2.0.0; the list is kept beside the repository, in
// ../shared/carriers/numbers.json, with its sources): detect.ts must accept every valid one and refuse every invalid
// one. Not part of `npm test` (a fresh clone has no ../shared): `npm run check:carrier-samples` runs it with
// CARRIER_SAMPLES_DIR (the samples folder; the list is in its parent), and CI runs that command. `npm test` checks
// numbers of our own (src/modules/carriers/detect.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainDetection } from '../../src/modules/carriers/detect.ts';

const dir = process.env.CARRIER_SAMPLES_DIR;
if (!dir) throw new Error('CARRIER_SAMPLES_DIR must name the folder of the recorded samples (npm run check:carrier-samples sets it).');
const numbers = JSON.parse(fs.readFileSync(path.join(dir, '..', 'numbers.json'), 'utf8')) as Record<
  string,
  { by_format?: Record<string, { valid: string[]; invalid: string[] }> }
>;

// S10 numbers of other countries (GB, CV, CF in the list) are not ours to detect; S10 US and CA have their own cases.
// jkeen names the UPS waybill format "UPS Waybill" without an id; ours is the slug.
const ID_ALIAS: Record<string, string> = { 'ups-waybill': 'ups_waybill' };

describe('jkeen test numbers (../shared/carriers/numbers.json)', () => {
  for (const carrier of ['ups', 'usps', 'fedex', 'canadapost']) {
    for (const [fid, f] of Object.entries(numbers[carrier]!.by_format!)) {
      const id = ID_ALIAS[fid] ?? fid;
      it(`${carrier} ${fid}: valid numbers validate, invalid ones do not`, () => {
        for (const n of f.valid) {
          const hit = explainDetection(n).find((c) => c.formatId === id || c.courier === carrier);
          expect(hit?.checkDigitValid, `${JSON.stringify(n)} → ${JSON.stringify(explainDetection(n))}`).toBe(true);
        }
        for (const n of f.invalid) {
          const same = explainDetection(n).filter((c) => c.formatId === id);
          expect(
            same.every((c) => !c.checkDigitValid),
            n,
          ).toBe(true);
        }
      });
    }
  }
});
