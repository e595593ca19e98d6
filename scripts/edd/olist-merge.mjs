// Merges partial copies of one Olist table (CC BY-NC-SA 4.0) into one CSV, for olist-to-csv.mjs.
// usage: node scripts/edd/olist-merge.mjs orders|customers|order_items|sellers COPY.csv [COPY.csv ...] > /tmp/olist-orders.csv
// Keep the data out of the repository: write the output under /tmp.
//
// Public copies of the dataset are often cut (a spreadsheet's first rows, a sample) and some went through a
// spreadsheet that rewrote the timestamps as M/D/YYYY H:MM (a "/" date) or DD-MM-YYYY HH:MM (a "-" date with the
// year last). A row is keyed by the table's key (orders: order_id, customers: customer_id, order_items:
// order_id + order_item_id, sellers: seller_id); blank rows and copies without the table's columns are left out;
// timestamps are written back as YYYY-MM-DD HH:MM[:SS]. When two copies disagree on a key's row after
// normalising (seconds dropped), the first copy's row is kept and the disagreement is counted on stderr.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

const TABLES = {
  orders: {
    key: ['order_id'],
    columns: [
      'order_id',
      'customer_id',
      'order_status',
      'order_purchase_timestamp',
      'order_approved_at',
      'order_delivered_carrier_date',
      'order_delivered_customer_date',
      'order_estimated_delivery_date',
    ],
  },
  customers: { key: ['customer_id'], columns: ['customer_id', 'customer_zip_code_prefix'] },
  order_items: { key: ['order_id', 'order_item_id'], columns: ['order_id', 'order_item_id', 'seller_id', 'shipping_limit_date'] },
  sellers: { key: ['seller_id'], columns: ['seller_id', 'seller_zip_code_prefix'] },
};

const [table, ...paths] = process.argv.slice(2);
const spec = TABLES[table];
if (!spec || paths.length === 0) {
  process.stderr.write('usage: node scripts/edd/olist-merge.mjs orders|customers|order_items|sellers COPY.csv [COPY.csv ...]\n');
  process.exit(2);
}

const pad = (n) => String(n).padStart(2, '0');
/** A timestamp as YYYY-MM-DD HH:MM[:SS]; null when it is not one of the three shapes. */
function isoTimestamp(text) {
  const t = text.trim();
  if (t === '') return '';
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(t);
  if (m) return `${m[1]}-${m[2]}-${m[3]} ${pad(m[4] ?? 0)}:${m[5] ?? '00'}${m[6] ? `:${m[6]}` : ''}`;
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(t);
  if (m) return `${m[3]}-${pad(m[1])}-${pad(m[2])} ${pad(m[4] ?? 0)}:${m[5] ?? '00'}${m[6] ? `:${m[6]}` : ''}`;
  m = /^(\d{2})-(\d{2})-(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(t);
  if (m) return `${m[3]}-${m[2]}-${m[1]} ${pad(m[4] ?? 0)}:${m[5] ?? '00'}${m[6] ? `:${m[6]}` : ''}`;
  return null;
}

const merged = new Map();
const stats = { copies: [], disagreements: 0, badTimestamps: 0 };
// Compared with seconds dropped and zip prefixes at 5 digits (a spreadsheet drops both).
const comparable = (row) =>
  spec.columns
    .map((c) => (/_(date|timestamp|at)$/.test(c) ? row[c].slice(0, 16) : c.endsWith('zip_code_prefix') ? row[c].padStart(5, '0') : row[c]))
    .join(',');
for (const path of paths) {
  const rows = parse(readFileSync(path), { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true });
  if (rows.length > 0 && spec.columns.some((c) => !(c in rows[0]))) {
    stats.copies.push({ path, skipped: 'columns missing' });
    continue;
  }
  let added = 0;
  for (const raw of rows) {
    if (spec.key.some((k) => !raw[k]?.trim())) continue;
    const row = {};
    let bad = false;
    for (const c of spec.columns) {
      const v = (raw[c] ?? '').trim();
      row[c] = /_(date|timestamp|at)$/.test(c) ? (isoTimestamp(v) ?? ((bad = true), v)) : v;
    }
    if (bad) {
      stats.badTimestamps++;
      continue;
    }
    const key = spec.key.map((k) => row[k]).join('|');
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, row);
      added++;
    } else if (comparable(seen) !== comparable(row)) {
      stats.disagreements++;
      if (process.env.OLIST_MERGE_SHOW) process.stderr.write(`${comparable(seen)}\n${comparable(row)}\n`);
    }
  }
  stats.copies.push({ path, rows: rows.length, added });
}
process.stdout.write(`${spec.columns.join(',')}\n`);
for (const row of merged.values()) process.stdout.write(`${spec.columns.map((c) => row[c]).join(',')}\n`);
process.stderr.write(`olist-merge ${table}: ${merged.size} rows; ${JSON.stringify(stats)}\n`);
