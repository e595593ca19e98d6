// Converts the Olist Brazilian E-Commerce public dataset (CC BY-NC-SA 4.0) to the edd:evaluate CSV format.
// usage: node scripts/edd/olist-to-csv.mjs [--keep-without-zip] ORDERS.csv CUSTOMERS.csv ORDER_ITEMS.csv SELLERS.csv > /tmp/olist-edd.csv
// Keep the data out of the repository: write the output under /tmp.
//
// shipped_at = order_delivered_carrier_date, delivered_at = order_delivered_customer_date, carrier = "olist",
// service = "", origin_postal = the seller's zip prefix (the order's first item), destination_postal = the
// customer's zip prefix, carrier_estimate = the date of order_estimated_delivery_date. Orders without both
// dates or zips, or delivered before they were handed to the carrier, are left out and counted on stderr;
// with --keep-without-zip an order whose zips are unknown is kept with empty postal codes (for a partial copy
// of the dataset whose customers or sellers files do not cover its orders).
// Rows come out in shipped_at order.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

const args = process.argv.slice(2);
const keepWithoutZip = args.includes('--keep-without-zip');
const [ordersPath, customersPath, itemsPath, sellersPath] = args.filter((a) => a !== '--keep-without-zip');
if (!sellersPath) {
  process.stderr.write(
    'usage: node scripts/edd/olist-to-csv.mjs [--keep-without-zip] ORDERS.csv CUSTOMERS.csv ORDER_ITEMS.csv SELLERS.csv\n',
  );
  process.exit(2);
}
const read = (path) => parse(readFileSync(path), { columns: true, bom: true, skip_empty_lines: true });
const zip = (z) => (z ?? '').trim().padStart(5, '0');

const customerZip = new Map(read(customersPath).map((c) => [c.customer_id, zip(c.customer_zip_code_prefix)]));
const sellerZip = new Map(read(sellersPath).map((s) => [s.seller_id, zip(s.seller_zip_code_prefix)]));
const firstSeller = new Map();
for (const item of read(itemsPath)) {
  const n = Number(item.order_item_id);
  const seen = firstSeller.get(item.order_id);
  if (!seen || n < seen.n) firstSeller.set(item.order_id, { n, seller: item.seller_id });
}

const skipped = { notDelivered: 0, noDates: 0, noZip: 0, deliveredBeforeShipped: 0 };
const rows = [];
const utc = (t) => `${t.trim().replace(' ', 'T')}Z`;
for (const o of read(ordersPath)) {
  if (o.order_status !== 'delivered') {
    skipped.notDelivered++;
    continue;
  }
  if (!o.order_delivered_carrier_date || !o.order_delivered_customer_date) {
    skipped.noDates++;
    continue;
  }
  const dest = customerZip.get(o.customer_id);
  const seller = firstSeller.get(o.order_id);
  const origin = seller && sellerZip.get(seller.seller);
  if ((!dest || !origin) && !keepWithoutZip) {
    skipped.noZip++;
    continue;
  }
  const shipped = utc(o.order_delivered_carrier_date);
  const delivered = utc(o.order_delivered_customer_date);
  if (Date.parse(delivered) < Date.parse(shipped)) {
    skipped.deliveredBeforeShipped++;
    continue;
  }
  rows.push([shipped, delivered, 'olist', '', origin ?? '', dest ?? '', (o.order_estimated_delivery_date ?? '').trim().slice(0, 10)]);
}
rows.sort((a, b) => Date.parse(a[0]) - Date.parse(b[0]));
process.stdout.write('shipped_at,delivered_at,carrier,service,origin_postal,destination_postal,carrier_estimate\n');
for (const r of rows) process.stdout.write(`${r.join(',')}\n`);
process.stderr.write(`olist-to-csv: ${rows.length} rows; left out ${JSON.stringify(skipped)}\n`);
