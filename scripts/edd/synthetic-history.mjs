// A seeded, clearly synthetic delivery history in the edd:evaluate CSV format, for when no real one is at hand.
// usage: node scripts/edd/synthetic-history.mjs [--rows 60000] [--seed 32] > /tmp/edd-synthetic.csv
//
// The world it draws: US carriers and Canada Post; business-day transit = a service's base by distance zone
// + a fixed per-lane offset (some lanes are a day slower or faster than the carrier's table) + noise with a
// long late tail + a December peak; deliveries fall on business days of the destination (US federal holidays;
// Canadian provincial ones). The carrier estimate (85% of rows) is the carrier's table for the zone: it knows
// neither the lane's offset nor the noise.
import Holidays from 'date-holidays';
import { PROVINCE } from '../../apps/server/src/edd/postal.ts';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROWS = opt('rows', 60_000);
let seed = opt('seed', 32) >>> 0;

// mulberry32
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
function weighted(pairs) {
  let r = random() * pairs.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of pairs) if ((r -= w) <= 0) return v;
  return pairs.at(-1)[0];
}
function hash(text) {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return (h >>> 0) / 4294967296;
}

const DAY = 86_400_000;
const holidaySets = new Map();
function isHoliday(country, region, day) {
  const iso = new Date(day * DAY).toISOString().slice(0, 10);
  const key = `${country}-${region ?? ''}-${iso.slice(0, 4)}`;
  let set = holidaySets.get(key);
  if (!set) {
    const h = region ? new Holidays(country, region) : new Holidays(country);
    set = new Set(
      h
        .getHolidays(Number(iso.slice(0, 4)))
        .filter((x) => x.type === 'public')
        .map((x) => x.date.slice(0, 10)),
    );
    holidaySets.set(key, set);
  }
  return set.has(iso);
}
function isBusiness(country, region, day) {
  const wd = (day + 4) % 7;
  return wd !== 0 && wd !== 6 && !isHoliday(country, region, day);
}
function addBusiness(country, region, day, k) {
  let d = day;
  while (k > 0) {
    d++;
    if (isBusiness(country, region, d)) k--;
  }
  return d;
}

// The first letters of the Canadian destinations drawn, in the order of the predictor's own map of letter to province:
// neither Prince Edward Island (C) nor the territories (X, Y), so a seed still draws the same history.
const CA_LETTERS = Object.keys(PROVINCE).filter((letter) => !['C', 'X', 'Y'].includes(letter));
const zip5 = (zip3) => `${zip3}${String(Math.floor(random() * 100)).padStart(2, '0')}`;
const US_ORIGINS = ['100', '331', '606', '750', '900', '981', '303', '430', '554', '850'];
const CA_ORIGINS = ['M5V', 'H2X', 'V6B', 'T2P'];
const US_DEST = Array.from({ length: 300 }, () => String(5 + Math.floor(random() * 995)).padStart(3, '0'));
const CA_DEST = Array.from(
  { length: 80 },
  () => `${pick(CA_LETTERS)}${Math.floor(random() * 10)}${String.fromCharCode(65 + Math.floor(random() * 26))}`,
);
const zipf = (pool) => pool[Math.min(pool.length - 1, Math.floor(pool.length * Math.pow(random(), 2.2)))];

const SERVICES = [
  { carrier: 'ups', service: 'ground', w: 30, base: (z) => 1 + z * 0.7 },
  { carrier: 'ups', service: '2day', w: 8, base: () => 2 },
  { carrier: 'usps', service: 'ground_advantage', w: 25, base: (z) => 2 + z * 0.5 },
  { carrier: 'usps', service: 'priority', w: 12, base: (z) => 2 + z * 0.25 },
  { carrier: 'fedex', service: 'ground', w: 15, base: (z) => 1 + z * 0.65 },
  { carrier: 'canadapost', service: 'regular', w: 10, base: (z) => 2 + z * 0.6 },
];

const START = Date.UTC(2025, 0, 2);
const END = Date.UTC(2026, 9, 31);
const shippedTimes = Array.from({ length: ROWS }, () => START + random() * (END - START)).sort((a, b) => a - b);

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
const lines = ['shipped_at,delivered_at,carrier,service,origin_postal,destination_postal,carrier_estimate'];
for (const t of shippedTimes) {
  const svc = weighted(SERVICES.map((s) => [s, s.w]));
  const canada = svc.carrier === 'canadapost';
  const o3 = canada ? pick(CA_ORIGINS) : pick(US_ORIGINS);
  const d3 = canada ? zipf(CA_DEST) : zipf(US_DEST);
  const origin = canada ? `${o3} 1A1` : zip5(o3);
  const dest = canada ? `${d3} ${Math.floor(random() * 10)}B${Math.floor(random() * 10)}` : zip5(d3);
  const zone = canada
    ? Math.min(6, Math.abs(CA_LETTERS.indexOf(o3[0]) - CA_LETTERS.indexOf(d3[0])))
    : Math.round(Math.abs(Number(o3[0]) - Number(d3[0])) * 0.7);
  const base = Math.round(svc.base(zone));
  const h = hash(`${svc.carrier}|${o3}|${d3}`);
  const laneOffset = h < 0.15 ? -1 : h < 0.65 ? 0 : h < 0.9 ? 1 : 2;
  const noise = weighted([
    [0, 55],
    [1, 22],
    [-1, 9],
    [2, 8],
    [3 + Math.floor(random() * 6), 6],
  ]);
  const shipDay = Math.floor(t / DAY);
  const date = new Date(t);
  const peak = (date.getUTCMonth() === 10 && date.getUTCDate() >= 25) || (date.getUTCMonth() === 11 && date.getUTCDate() <= 24);
  const k = Math.max(1, base + (svc.service === '2day' ? 0 : laneOffset) + noise + (peak && random() < 0.5 ? 1 : 0));
  const country = canada ? 'CA' : 'US';
  const region = canada ? PROVINCE[d3[0]] : undefined;
  const deliveredDay = addBusiness(country, region, shipDay, k);
  const delivered = Math.max(t + 3_600_000, deliveredDay * DAY + (9 + random() * 11) * 3_600_000);
  const estimate = random() < 0.85 ? new Date(addBusiness(country, region, shipDay, base) * DAY).toISOString().slice(0, 10) : '';
  lines.push([iso(t), iso(delivered), svc.carrier, svc.service, origin, dest, estimate].join(','));
}
process.stdout.write(`${lines.join('\n')}\n`);
process.stderr.write(`synthetic-history: ${ROWS} rows, seed ${opt('seed', 32)}\n`);
