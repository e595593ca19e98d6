import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { Evaluator } from '/work/wt-edd/apps/server/src/edd/evaluate.ts';
import { calendarFor } from '/work/wt-edd/apps/server/src/edd/calendar.ts';
import { parseTimestamp } from '/work/wt-edd/apps/server/src/edd/days.ts';
const file = process.argv[2]!;
const opts = JSON.parse(process.argv[3] ?? '{}');
const rows: any[] = [];
let line = 1;
for await (const r of createReadStream(file).pipe(parse({ from_line: 2 }))) {
  line++;
  const [sa, da, carrier, service, o, d, e] = r as string[];
  rows.push({
    line,
    shippedAt: sa,
    deliveredAt: da,
    shipped: parseTimestamp(sa!)!,
    delivered: parseTimestamp(da!)!,
    carrier,
    service,
    originPostal: o,
    destinationPostal: d,
    carrierEstimate: e,
    estimateDay: e ? parseTimestamp(e)!.day : null,
  });
}
for (const o of Array.isArray(opts) ? opts : [opts]) {
  const ev = new Evaluator(process.env.CAL ? { ...o, calendar: () => calendarFor(process.env.CAL as 'BR') } : o);
  const t = Date.now();
  for (const r of rows) ev.add(r);
  const rep = ev.report();
  console.log('level', ev.predictor.windowLevel, JSON.stringify(rep.baselines.globalWindow90));
  console.log(
    JSON.stringify(o),
    Date.now() - t,
    'ms',
    JSON.stringify({
      n: rep.n,
      ex: rep.exactDay,
      win: rep.withinWindow,
      w: rep.meanWindowDays,
      mae: rep.maeDays,
      p: rep.lateFlagPrecision,
      r: rep.lateFlagRecall,
    }),
    process.env.B ? JSON.stringify(rep.baselines) : '',
  );
}
