// olist-merge.mjs: partial public copies of an Olist table merged by key, their rewritten timestamps made ISO again.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'olist-merge-'));
const HEADER =
  'order_id,customer_id,order_status,order_purchase_timestamp,order_approved_at,order_delivered_carrier_date,order_delivered_customer_date,order_estimated_delivery_date';

function file(name, lines) {
  const p = path.join(dir, name);
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

function run(table, ...paths) {
  const r = spawnSync(process.execPath, [path.join(here, 'olist-merge.mjs'), table, ...paths], { encoding: 'utf8' });
  return { lines: r.stdout.trim().split('\n'), stderr: r.stderr, status: r.status };
}
const merge = (table, ...paths) => run(table, ...paths).lines;

describe('olist-merge.mjs', () => {
  it('reads the ISO, M/D/YYYY and DD-MM-YYYY copies of the orders, keeps each order once and drops blank rows', () => {
    const iso = file('iso.csv', [
      HEADER,
      'a,ca,delivered,2017-10-02 10:56:33,2017-10-02 11:07:15,2017-10-04 19:55:00,2017-10-10 21:25:13,2017-10-18 00:00:00',
    ]);
    const us = file('us.csv', [
      HEADER,
      'a,ca,delivered,10/2/2017 10:56,10/2/2017 11:07,10/4/2017 19:55,10/10/2017 21:25,10/18/2017 0:00',
      'b,cb,delivered,7/24/2018 20:41,7/26/2018 3:24,7/26/2018 14:31,8/7/2018 15:27,8/13/2018 0:00',
      ',,,,,,,',
    ]);
    const eu = file('eu.csv', [HEADER, 'c,cc,shipped,24-07-2018 20:41,26-07-2018 03:24,26-07-2018 14:31,,13-08-2018 00:00']);
    expect(merge('orders', iso, us, eu)).toEqual([
      HEADER,
      'a,ca,delivered,2017-10-02 10:56:33,2017-10-02 11:07:15,2017-10-04 19:55:00,2017-10-10 21:25:13,2017-10-18 00:00:00',
      'b,cb,delivered,2018-07-24 20:41,2018-07-26 03:24,2018-07-26 14:31,2018-08-07 15:27,2018-08-13 00:00',
      'c,cc,shipped,2018-07-24 20:41,2018-07-26 03:24,2018-07-26 14:31,,2018-08-13 00:00',
    ]);
  });

  it('keeps the first copy of an order the copies disagree on and counts the disagreement', () => {
    const a = file('a.csv', [
      HEADER,
      'd,cd,delivered,2017-05-14 20:28:25,2017-05-14 20:42:45,2017-05-16 08:17:46,2017-05-25 09:14:31,2017-06-12 00:00:00',
    ]);
    const b = file('b.csv', [HEADER, 'd,cd,delivered,5/14/2017 20:28,5/14/2017 20:42,5/16/2017 8:17,5/5/2018 12:28,6/12/2017 0:00']);
    const r = run('orders', a, b);
    expect(r.lines[1]).toContain('2017-05-25 09:14:31');
    expect(r.lines).toHaveLength(2);
    expect(r.stderr).toContain('"disagreements":1');
  });

  it('takes a zip prefix a spreadsheet cut to four digits as the same, and skips a copy without the columns', () => {
    const a = file('s1.csv', ['seller_id,seller_zip_code_prefix,seller_city,seller_state', 's1,04726,sao paulo,SP']);
    const b = file('s2.csv', ['seller_id,seller_zip_code_prefix', 's1,4726', 's2,13023']);
    const c = file('s3.csv', ['seller_id,seller_zip,seller_rating', 's9,75847,3.75']);
    const r = run('sellers', a, b, c);
    expect(r.lines).toEqual(['seller_id,seller_zip_code_prefix', 's1,04726', 's2,13023']);
    expect(r.stderr).toContain('"disagreements":0');
    expect(r.stderr).toContain('"skipped":"columns missing"');
  });
});
