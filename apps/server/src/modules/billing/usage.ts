import { sql } from 'drizzle-orm';
import { centsToDollars, type UsageRecord } from '@shiptrail/contract';
import type { Queryable } from '../../db/client.ts';
import { ledgerEntries } from '../../db/schema.ts';

/**
 * One usage record per day of [starts, ends] in the account's time zone: trackings and SMS charged that day
 * (net of refunds, which give an SMS back), their costs and the day's total. Days without usage are present
 * with zeros, so a chart of daily cost has every day. Reads the ledger's (user, created_at) index range only.
 */
export async function usage(db: Queryable, userId: string, timeZone: string, starts: Date, ends: Date): Promise<UsageRecord[]> {
  const tz = isTimeZone(timeZone) ? timeZone : 'UTC';
  const r = await db.execute<{
    dt: string;
    tracking: number;
    sms: number;
    cost_tracking: number;
    cost_sms: number;
    updated_at: string | null;
  }>(sql`
    with days as (
      select d::date as dt
      from generate_series((${starts.toISOString()}::timestamptz at time zone ${tz})::date, (${ends.toISOString()}::timestamptz at time zone ${tz})::date, interval '1 day') d
    ), used as (
      select (created_at at time zone ${tz})::date as dt,
        count(*) filter (where kind = 'tracking')::int as tracking,
        (count(*) filter (where kind = 'sms') - count(*) filter (where kind = 'refund' and description like 'SMS%'))::int as sms,
        coalesce(-sum(amount_cents) filter (where kind = 'tracking'), 0)::int as cost_tracking,
        coalesce(-sum(amount_cents) filter (where kind = 'sms' or (kind = 'refund' and description like 'SMS%')), 0)::int as cost_sms,
        max(created_at) as updated_at
      from ${ledgerEntries}
      where user_id = ${userId} and created_at >= ${starts.toISOString()}::timestamptz and created_at <= ${ends.toISOString()}::timestamptz
      group by 1
    )
    select to_char(days.dt, 'YYYY-MM-DD') as dt, coalesce(u.tracking, 0) as tracking, coalesce(u.sms, 0) as sms,
      coalesce(u.cost_tracking, 0) as cost_tracking, coalesce(u.cost_sms, 0) as cost_sms, u.updated_at
    from days left join used u on u.dt = days.dt
    order by days.dt`);
  const rows = ((r as { rows?: unknown[] }).rows ?? r) as Array<{
    dt: string;
    tracking: number;
    sms: number;
    cost_tracking: number;
    cost_sms: number;
    updated_at: string | Date | null;
  }>;
  return rows.map((x) => ({
    id: `${userId.slice(0, 8)}-${x.dt}`,
    dt: x.dt,
    tracking: Number(x.tracking),
    sms: Number(x.sms),
    costTracking: centsToDollars(Number(x.cost_tracking)),
    costSms: centsToDollars(Number(x.cost_sms)),
    total: centsToDollars(Number(x.cost_tracking) + Number(x.cost_sms)),
    updatedAt: x.updated_at ? new Date(x.updated_at).toISOString() : `${x.dt}T00:00:00.000Z`,
  }));
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
