// `npm run --silent edd:evaluate -- FILE.csv [--calendar auto|US|CA|BR|weekends] [--half-life DAYS]`: scores the delivery-date
// predictor on a delivery history against baselines and prints one JSON line. A malformed file gets one line
// on stderr and exit code 2.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { calendarFor, type CalendarCountry } from './calendar.ts';
import { parseTimestamp } from './days.ts';
import { Evaluator, type HistoryRow } from './evaluate.ts';
import { canadianProvince } from './postal.ts';

const COLUMNS = ['shipped_at', 'delivered_at', 'carrier', 'service', 'origin_postal', 'destination_postal', 'carrier_estimate'] as const;
type Column = (typeof COLUMNS)[number];

class InputError extends Error {}

const USAGE = 'usage: npm run --silent edd:evaluate -- FILE.csv [--calendar auto|US|CA|BR|weekends] [--half-life DAYS]';

function parseArgs(argv: string[]): { file: string; calendar: 'auto' | CalendarCountry; halfLifeDays?: number } {
  let file: string | undefined;
  let calendar: 'auto' | CalendarCountry = 'auto';
  let halfLifeDays: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--half-life' || a.startsWith('--half-life=')) {
      const v = Number(a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
      if (!(v > 0)) throw new InputError(`--half-life must be a number of days above 0 (${USAGE})`);
      halfLifeDays = v;
      continue;
    }
    if (a === '--calendar' || a.startsWith('--calendar=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v !== 'auto' && v !== 'US' && v !== 'CA' && v !== 'BR' && v !== 'weekends')
        throw new InputError(`--calendar must be auto, US, CA, BR or weekends (${USAGE})`);
      calendar = v;
    } else if (a.startsWith('--')) {
      throw new InputError(`unknown option ${a} (${USAGE})`);
    } else if (file === undefined) {
      file = a;
    } else {
      throw new InputError(`one file only (${USAGE})`);
    }
  }
  if (!file) throw new InputError(USAGE);
  return { file, calendar, halfLifeDays };
}

async function run(argv: string[]): Promise<void> {
  const { file, calendar, halfLifeDays } = parseArgs(argv);
  try {
    if (!(await stat(file)).isFile()) throw new InputError(`${file}: not a file`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const evaluator = new Evaluator({
    ...(halfLifeDays ? { halfLifeDays } : {}),
    ...(calendar === 'auto'
      ? {}
      : {
          calendarName: calendar === 'BR' ? 'BR (weekends and national public holidays)' : calendar,
          calendar: (postal: string) => (calendar === 'CA' ? calendarFor('CA', canadianProvince(postal)) : calendarFor(calendar)),
        }),
  });

  const parser = createReadStream(file).pipe(parse({ bom: true, skip_empty_lines: true, info: true }));
  let index: Record<Column, number> | null = null;
  let line = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      line = info.lines;
      if (!index) {
        const names = record.map((h) => h.trim().toLowerCase());
        const missing = COLUMNS.filter((c) => !names.includes(c));
        if (missing.length > 0)
          throw new InputError(`${file}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} in the header`);
        index = Object.fromEntries(COLUMNS.map((c) => [c, names.indexOf(c)])) as Record<Column, number>;
        continue;
      }
      const get = (c: Column) => (record[index![c]] ?? '').trim();
      const stamp = (c: Column) => {
        const v = get(c);
        return parseTimestamp(v) ?? fail(`${file} line ${line}: ${c} is not an ISO 8601 date or date-time: ${JSON.stringify(v)}`);
      };
      const shipped = stamp('shipped_at');
      const delivered = stamp('delivered_at');
      if (delivered.instant < shipped.instant)
        fail(`${file} line ${line}: delivered_at ${get('delivered_at')} is before shipped_at ${get('shipped_at')}`);
      const estimate = get('carrier_estimate');
      const row: HistoryRow = {
        line,
        shippedAt: get('shipped_at'),
        deliveredAt: get('delivered_at'),
        shipped,
        delivered,
        carrier: get('carrier'),
        service: get('service'),
        originPostal: get('origin_postal'),
        destinationPostal: get('destination_postal'),
        carrierEstimate: estimate,
        estimateDay: estimate ? stamp('carrier_estimate').day : null,
      };
      try {
        evaluator.add(row);
      } catch (err) {
        if (err instanceof RangeError) fail(`${file} ${err.message}`);
        throw err;
      }
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as { code?: string }).code;
    if (code?.startsWith('CSV_')) throw new InputError(`${file}: not a valid CSV: ${(err as Error).message}`);
    throw err;
  }
  if (!index) throw new InputError(`${file}: empty (no header)`);
  const report = evaluator.report();
  process.stdout.write(`${JSON.stringify(halfLifeDays ? { ...report, halfLifeDays } : report)}\n`);
}

function fail(message: string): never {
  throw new InputError(message);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

run(process.argv.slice(2)).then(
  () => (process.exitCode = 0),
  (err: unknown) => {
    if (err instanceof InputError) {
      process.stderr.write(`edd:evaluate: ${oneLine(err.message)}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`edd:evaluate: internal error: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
      process.exitCode = 1;
    }
  },
);
