import { describe, expect, it } from 'vitest';
import { MSG, TRACKING_NUMBER_MAX } from '@shiptrail/contract';
import { CarrierDetectError, detectCarriers, explainDetection, normalizeTrackingNumber, resolveCourier } from './detect.ts';

// Numbers of our own for every format we detect: a fixed prefix of the format's shape (carrier numbers §2-§6), the
// rest drawn from a seeded generator, and the check digit computed here from the published rule, written apart from
// detect.ts (which reads the rules from its data). A valid number must be recognised with its check digit, the same
// number with any other check digit must not. Other projects' test lists are checked by `npm run
// check:carrier-samples` (test/carriers/test-numbers.shared.test.ts), outside `npm test`.
const digit = (ch: string) => (/\d/.test(ch) ? Number(ch) : (ch.charCodeAt(0) - 3) % 10);
const sum = (serial: string, weight: (i: number) => number) => [...serial].reduce((t, ch, i) => t + digit(ch) * weight(i), 0);
/** Weighted from the left (position 0 even), check = (10 - sum mod 10) mod 10. */
const mod10 = (serial: string, even: number, odd: number) => (10 - (sum(serial, (i) => (i % 2 ? odd : even)) % 10)) % 10;
/** USPS mod 10: from the right-most data digit leftwards, 3, 1, 3, 1... */
const fromRight31 = (serial: string) => mod10([...serial].reverse().join(''), 3, 1);
/** FedEx: a repeating weight pattern, sum mod 11 mod 10. */
const mod11 = (serial: string, w: number[]) => (sum(serial, (i) => w[i % w.length]!) % 11) % 10;
/** UPU S10: weights 8 6 4 2 3 5 9 7, r = sum mod 11; 1 gives 0, 0 gives 5, else 11 - r. */
const s10 = (serial: string) => {
  const r = sum(serial, (i) => [8, 6, 4, 2, 3, 5, 9, 7][i]!) % 11;
  return r === 1 ? 0 : r === 0 ? 5 : 11 - r;
};

type Shape = {
  id: string;
  prefix: string;
  free: number;
  alnum?: number;
  check: (body: string) => number;
  suffix?: string;
  serial?: (body: string) => string;
};
const SHAPES: Shape[] = [
  { id: 'ups', prefix: '1Z', alnum: 6, free: 9, check: (b) => mod10(b.slice(2), 1, 2) },
  { id: 'ups_waybill', prefix: 'K', free: 9, check: (b) => mod10(b.slice(1), 1, 2) },
  { id: 'usps_20', prefix: '0307179000', free: 9, check: (b) => mod10(b, 3, 1) },
  { id: 'usps_impb_n', prefix: '9400111206206', free: 8, check: fromRight31 },
  { id: 'usps_impb_c', prefix: '92612902891', free: 10, check: fromRight31 },
  { id: 'usps_legacy', prefix: '9101123456789', free: 8, check: fromRight31 },
  { id: 'fedex_12', prefix: '', free: 11, check: (b) => mod11(b, [3, 1, 7]) },
  { id: 'fedex_ground', prefix: '', free: 14, check: (b) => mod10(b, 1, 3) },
  { id: 'fedex_ground_96', prefix: '9611020', free: 14, check: (b) => mod10(b.slice(7), 1, 3) },
  { id: 'fedex_34', prefix: '10019213342500010003', free: 13, check: (b) => mod11(b.slice(20), [1, 7, 3]) },
  { id: 'canada_post', prefix: '0073938', free: 8, check: (b) => mod10(b, 3, 1) },
  { id: 's10', prefix: 'RB', free: 8, check: (b) => s10(b.slice(2)), suffix: 'US' },
  { id: 's10', prefix: 'EE', free: 8, check: (b) => s10(b.slice(2)), suffix: 'CA' },
];

/** A small seeded generator (a linear congruential one): the same numbers on every run. */
function drawn(seed: number) {
  let x = seed;
  return (alphabet: string) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return alphabet[x % alphabet.length]!;
  };
}

describe('numbers of our own, with check digits computed from the published rules', () => {
  for (const [n, shape] of SHAPES.entries()) {
    it(`${shape.id}${shape.suffix ? ` (${shape.suffix})` : ''}: 8 valid numbers are recognised, any other check digit is not`, () => {
      const next = drawn(1000 + n);
      for (let k = 0; k < 8; k++) {
        let body = shape.prefix;
        for (let a = 0; a < (shape.alnum ?? 0); a++) body += next('0123456789ABCDEFGHJKLMNPRSTVWXY');
        for (let d = 0; d < shape.free; d++) body += next('0123456789');
        const check = shape.check(body);
        const valid = `${body}${check}${shape.suffix ?? ''}`;
        const hit = explainDetection(valid).find((c) => c.formatId === shape.id);
        expect(hit?.checkDigitValid, `${valid} → ${JSON.stringify(explainDetection(valid))}`).toBe(true);
        for (let other = 0; other < 10; other++) {
          if (other === check) continue;
          const wrong = `${body}${other}${shape.suffix ?? ''}`;
          expect(
            explainDetection(wrong).filter((c) => c.formatId === shape.id && c.checkDigitValid),
            wrong,
          ).toEqual([]);
        }
      }
    });
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
