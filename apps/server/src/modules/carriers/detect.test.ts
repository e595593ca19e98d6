import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MSG, TRACKING_NUMBER_MAX } from '@shiptrail/contract';
import { CarrierDetectError, detectCarriers, explainDetection, normalizeTrackingNumber, resolveCourier } from './detect.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// jkeen's test numbers, copied into the repo with the recorded carrier samples (see that folder's README).
const numbersPath = path.resolve(here, '..', '..', '..', 'test', 'carriers', 'numbers.json');
const numbers = JSON.parse(fs.readFileSync(numbersPath, 'utf8')) as Record<
  string,
  { by_format?: Record<string, { valid: string[]; invalid: string[] }> }
>;

// jkeen names the UPS waybill format "UPS Waybill" without an id; ours is the slug.
const ID_ALIAS: Record<string, string> = { 'ups-waybill': 'ups_waybill' };
const COURIER: Record<string, string> = { ups: 'ups', usps: 'usps', fedex: 'fedex', canadapost: 'canadapost' };

describe('jkeen test numbers (test/carriers/numbers.json)', () => {
  for (const carrier of ['ups', 'usps', 'fedex', 'canadapost']) {
    for (const [fid, f] of Object.entries(numbers[carrier]!.by_format!)) {
      const id = ID_ALIAS[fid] ?? fid;
      it(`${carrier} ${fid}: valid numbers validate, invalid ones do not`, () => {
        for (const n of f.valid) {
          const hit = explainDetection(n).find((c) => c.formatId === id || c.courier === COURIER[carrier]);
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

  it('S10: US → USPS, CA → Canada Post; other countries and bad check digits are not ours', () => {
    expect(detectCarriers('RB123456785US')[0]).toMatchObject({ courier: 'usps', checkDigitValid: true });
    expect(detectCarriers('RB123456785CA')[0]).toMatchObject({ courier: 'canadapost', checkDigitValid: true });
    expect(detectCarriers('EJ958083578US')[0]?.courier).toBe('usps');
    expect(detectCarriers('RB123456785GB')).toEqual([]);
    expect(detectCarriers('RB123456785XX')).toEqual([]);
    expect(detectCarriers('RB123456786US')[0]?.checkDigitValid).toBe(false);
  });
});

describe('normalizeTrackingNumber', () => {
  it('upper-cases and strips spaces and dashes', () => {
    expect(normalizeTrackingNumber(' 1z 5r89-3903 5756 7127 ')).toBe('1Z5R89390357567127');
    expect(normalizeTrackingNumber('9400\u00a01112–0108')).toBe('940011120108');
  });
});

describe('detectCarriers', () => {
  it('ranks check-digit-valid candidates first and one entry per courier', () => {
    // 22-digit 92 6129…: USPS IMpb first, FedEx SmartPost second (the real sample is tracked by USPS)
    expect(detectCarriers('9261290289104185136058').map((c) => c.courier)).toEqual(['usps', 'fedex']);
    // bare 20-digit 6129…: FedEx SmartPost (v1.9 rule) before USPS
    expect(detectCarriers('61292701078443410536')[0]).toMatchObject({ courier: 'fedex', checkDigitValid: true });
    // 34-digit 420…: USPS routing + IMpb before FedEx 34 (carrier numbers §8)
    expect(detectCarriers('4201028200009261290113185417468510')[0]?.courier).toBe('usps');
    const c = detectCarriers('1Z5R89390357567127');
    expect(c).toEqual([{ courier: 'ups', name: 'UPS', checkDigitValid: true, service: 'UPS United States Ground' }]);
  });

  it('returns nothing for text that is no tracking number', () => {
    expect(detectCarriers('hello world')).toEqual([]);
    expect(detectCarriers('')).toEqual([]);
    expect(detectCarriers('1'.repeat(60))).toEqual([]);
  });

  it('USPS test numbers rejected by the strict Pub 199 rules still detect as USPS (loose rule)', () => {
    for (const n of ['92026124161170148800003176', '92041124161170148800003131', '92055124161170148800000274']) {
      expect(detectCarriers(n)[0]).toMatchObject({ courier: 'usps', checkDigitValid: true });
    }
  });
});

describe('resolveCourier', () => {
  it('detects the courier and the trackable number', () => {
    expect(resolveCourier('1z5r 8939 0357 5671 27', null)).toEqual({ tid: '1Z5R89390357567127', courier: 'ups' });
    // 420 + ZIP routing prefix is not part of the USPS number
    expect(resolveCourier('420 22153 9101026837331000039521', null)).toEqual({ tid: '9101026837331000039521', courier: 'usps' });
    // FedEx 34-digit barcode → its 12-digit Express number
    expect(resolveCourier('1001921334250001000300779017972697', null)).toEqual({ tid: '779017972697', courier: 'fedex' });
    expect(resolveCourier('9611020987654312345672', null)).toEqual({ tid: '987654312345672', courier: 'fedex' });
    expect(resolveCourier('1371134583769923', null)).toEqual({ tid: '1371134583769923', courier: 'canadapost' });
  });

  it('accepts a named courier whose check digit fails, with a warning', () => {
    const r = resolveCourier('1Z1111111111111111', 'ups');
    expect(r.courier).toBe('ups');
    expect(r.warning).toMatch(/does not look like a UPS tracking number/);
    const other = resolveCourier('1Z5R89390357567127', 'fedex');
    expect(other).toMatchObject({ tid: '1Z5R89390357567127', courier: 'fedex', warning: expect.stringContaining('FedEx') });
    // a valid number for the named courier: no warning
    expect(resolveCourier('986578788855', 'fedex')).toEqual({ tid: '986578788855', courier: 'fedex' });
    // a length-only Canada Post format (12-digit PIN) has no check digit to fail
    expect(resolveCourier('123456789013', 'canadapost')).toEqual({ tid: '123456789013', courier: 'canadapost' });
  });

  it('without a courier: a mistyped but unmistakable UPS number is accepted with a warning', () => {
    const r = resolveCourier('1Z12345E0205271688', null);
    expect(r).toMatchObject({ courier: 'ups', warning: expect.stringContaining('check digit') });
  });

  it('without a courier and no match: UNKNOWN_FORMAT with a clear message', () => {
    for (const n of ['ABCDEFG', '123456789013', 'RB123456785GB']) {
      let err: unknown;
      try {
        resolveCourier(n, null);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CarrierDetectError);
      expect(err).toMatchObject({ code: 'UNKNOWN_FORMAT', message: 'We could not recognise this tracking number. Choose the courier.' });
    }
  });

  it('empty or absurd input is INVALID_NUMBER even with a courier', () => {
    expect(() => resolveCourier('  - ', 'ups')).toThrow(CarrierDetectError);
    expect(() => resolveCourier('<script>', 'ups')).toThrow(/letters and digits/);
  });

  it('takes numbers up to the contract limit (a 42-digit USPS IMpb scan with 420+ZIP); longer ones get the contract message', () => {
    const impb42 = '420123459212345678901234567890123456789013';
    expect(impb42.length).toBe(TRACKING_NUMBER_MAX);
    expect(resolveCourier(impb42, null)).toEqual({ tid: '9212345678901234567890123456789013', courier: 'usps' });
    expect(detectCarriers(impb42).map((c) => c.courier)).toEqual(['usps']);
    expect(() => resolveCourier(impb42 + '1', 'usps')).toThrow(MSG.trackingNumberTooLong);
  });
});
