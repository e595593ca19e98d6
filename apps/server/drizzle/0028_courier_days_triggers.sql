-- Decision 152: courier_days (migration 0027) is kept by the database from shipment_checkpoints, in the statement that
-- writes scans, so in its transaction, whoever writes them: one row per company, courier and local day of the
-- company's time zone on which the courier made a scan, counted as the couriers' figures count (decision 134): stops
-- (Delivered and FailAttempt), deliveries, deliveries the day the shipment went out (an OutForDelivery scan of the
-- same shipment that local day, by anyone) and failed attempts. A change does not add or subtract: the days it
-- touches are counted again from the scans (a handful of index ranges), so every figure is exact by construction.
-- A day is touched by a courier's scan on it, and by an OutForDelivery scan of a shipment on it (its deliveries that
-- day by any courier). Also kept: a shipment given to another company (both companies' days), and a company's time
-- zone changed (its days are counted again). Hand-written: drizzle-kit does not generate triggers. Then the backfill.

-- The days (company, courier, local day) given, counted again from the scans: a day with no scan of the courier goes.
CREATE FUNCTION "courier_days_refresh"("p_company" uuid[], "p_courier" uuid[], "p_day" date[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- Writers of the same day wait for each other: a day is counted again whole, so two counts at once would each miss
  -- the other's scans and collide on the day's key (the second writer's scan refused). Taken in one order; each
  -- statement below then reads with a snapshot taken after the other writer committed.
  PERFORM pg_advisory_xact_lock(hashtextextended(k."company_id"::text || k."courier_id"::text || k."day"::text, 152))
  FROM (SELECT DISTINCT * FROM unnest("p_company", "p_courier", "p_day") AS k("company_id", "courier_id", "day") ORDER BY 1, 2, 3) k;
  DELETE FROM "courier_days" d
  USING (SELECT DISTINCT * FROM unnest("p_company", "p_courier", "p_day") AS k("company_id", "courier_id", "day")) k
  WHERE d."company_id" = k."company_id" AND d."courier_id" = k."courier_id" AND d."day" = k."day";
  INSERT INTO "courier_days" ("company_id", "courier_id", "day", "by_name", "stops", "delivered", "on_time", "failed")
  SELECT k."company_id", k."courier_id", k."day", max(sc."by_name"),
    count(*) FILTER (WHERE sc."status" IN ('Delivered', 'FailAttempt')),
    count(*) FILTER (WHERE sc."status" = 'Delivered'),
    count(*) FILTER (WHERE sc."status" = 'Delivered' AND EXISTS (
      SELECT 1 FROM "shipment_checkpoints" o
      WHERE o."shipment_id" = sc."shipment_id" AND o."status" = 'OutForDelivery'
        AND o."time" >= sc."time" - interval '2 days' AND o."time" < sc."time" + interval '2 days'
        AND (o."time" AT TIME ZONE u."time_zone")::date = k."day")),
    count(*) FILTER (WHERE sc."status" = 'FailAttempt')
  FROM (SELECT DISTINCT * FROM unnest("p_company", "p_courier", "p_day") AS k("company_id", "courier_id", "day")) k
  JOIN "users" u ON u."id" = k."company_id"
  -- A local day lies within the UTC day before and the one after (offsets are -12 h to +14 h).
  JOIN "shipment_checkpoints" sc ON sc."by_user_id" = k."courier_id" AND sc."by_role" = 'courier'
    AND sc."time" >= (k."day" - 1)::timestamp AT TIME ZONE 'UTC' AND sc."time" < (k."day" + 2)::timestamp AT TIME ZONE 'UTC'
    AND (sc."time" AT TIME ZONE u."time_zone")::date = k."day"
  JOIN "shipments" s ON s."id" = sc."shipment_id" AND s."company_id" = k."company_id"
  GROUP BY k."company_id", k."courier_id", k."day";
END $$;
--> statement-breakpoint
-- Every day of one company (all companies when null), counted from the scans: the backfill, and a time zone changed.
CREATE FUNCTION "courier_days_rebuild"("p_company" uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "courier_days" WHERE "p_company" IS NULL OR "company_id" = "p_company";
  INSERT INTO "courier_days" ("company_id", "courier_id", "day", "by_name", "stops", "delivered", "on_time", "failed")
  SELECT s."company_id", sc."by_user_id", (sc."time" AT TIME ZONE u."time_zone")::date, max(sc."by_name"),
    count(*) FILTER (WHERE sc."status" IN ('Delivered', 'FailAttempt')),
    count(*) FILTER (WHERE sc."status" = 'Delivered'),
    count(*) FILTER (WHERE sc."status" = 'Delivered' AND EXISTS (
      SELECT 1 FROM "shipment_checkpoints" o
      WHERE o."shipment_id" = sc."shipment_id" AND o."status" = 'OutForDelivery'
        AND o."time" >= sc."time" - interval '2 days' AND o."time" < sc."time" + interval '2 days'
        AND (o."time" AT TIME ZONE u."time_zone")::date = (sc."time" AT TIME ZONE u."time_zone")::date)),
    count(*) FILTER (WHERE sc."status" = 'FailAttempt')
  FROM "shipment_checkpoints" sc
  JOIN "shipments" s ON s."id" = sc."shipment_id"
  JOIN "users" u ON u."id" = s."company_id"
  WHERE sc."by_role" = 'courier' AND sc."by_user_id" IS NOT NULL AND ("p_company" IS NULL OR s."company_id" = "p_company")
  GROUP BY 1, 2, 3
  ORDER BY 3, 1, 2;
END $$;
--> statement-breakpoint
-- The days touched by the scans of a statement (the transition tables, old and new rows alike): each courier scan's
-- own day; for an OutForDelivery scan, the days of the shipment's courier scans on the same local day; for a scan
-- whose shipment is gone (a shipment deleted: its scans go by the foreign key), the courier's kept days around it
-- in any company (the shipment's company is no longer known; counting a day again is always right).
CREATE FUNCTION "courier_days_touch"("p_scans" jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  companies uuid[];
  couriers uuid[];
  days date[];
BEGIN
  WITH c AS (
    SELECT (x->>'shipment_id')::uuid AS "shipment_id", x->>'status' AS "status", (x->>'time')::timestamptz AS "time",
      (x->>'by_user_id')::uuid AS "by_user_id", x->>'by_role' AS "by_role"
    FROM jsonb_array_elements("p_scans") x
  ), k AS (
    SELECT s."company_id", c."by_user_id" AS "courier_id", (c."time" AT TIME ZONE u."time_zone")::date AS "day"
    FROM c JOIN "shipments" s ON s."id" = c."shipment_id" JOIN "users" u ON u."id" = s."company_id"
    WHERE c."by_role" = 'courier' AND c."by_user_id" IS NOT NULL
    UNION
    SELECT s."company_id", x."by_user_id", (x."time" AT TIME ZONE u."time_zone")::date
    FROM c JOIN "shipments" s ON s."id" = c."shipment_id" JOIN "users" u ON u."id" = s."company_id"
    JOIN "shipment_checkpoints" x ON x."shipment_id" = c."shipment_id" AND x."by_role" = 'courier' AND x."by_user_id" IS NOT NULL
      AND x."time" >= c."time" - interval '2 days' AND x."time" < c."time" + interval '2 days'
      AND (x."time" AT TIME ZONE u."time_zone")::date = (c."time" AT TIME ZONE u."time_zone")::date
    WHERE c."status" = 'OutForDelivery'
    UNION
    SELECT d."company_id", d."courier_id", d."day"
    FROM c JOIN "courier_days" d ON d."courier_id" = c."by_user_id"
      AND d."day" BETWEEN (c."time" AT TIME ZONE 'UTC')::date - 1 AND (c."time" AT TIME ZONE 'UTC')::date + 1
    WHERE c."by_role" = 'courier' AND NOT EXISTS (SELECT 1 FROM "shipments" s WHERE s."id" = c."shipment_id")
  )
  SELECT array_agg(k."company_id"), array_agg(k."courier_id"), array_agg(k."day") INTO companies, couriers, days FROM k;
  IF companies IS NOT NULL THEN
    PERFORM "courier_days_refresh"(companies, couriers, days);
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION "shipment_checkpoints_courier_days_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "courier_days_touch"((SELECT coalesce(jsonb_agg(jsonb_build_object('shipment_id', n."shipment_id",
    'status', n."status", 'time', n."time", 'by_user_id', n."by_user_id", 'by_role', n."by_role")), '[]') FROM "sc_new" n));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "shipment_checkpoints_courier_days_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only the rows whose counted columns changed (a proof photo added to a scan touches no day).
  PERFORM "courier_days_touch"((SELECT coalesce(jsonb_agg(jsonb_build_object('shipment_id', x."shipment_id",
    'status', x."status", 'time', x."time", 'by_user_id', x."by_user_id", 'by_role', x."by_role")), '[]')
    FROM (
      SELECT o."shipment_id", o."status", o."time", o."by_user_id", o."by_role"
      FROM "sc_old" o JOIN "sc_new" n ON n."id" = o."id"
      WHERE (o."shipment_id", o."status", o."time", o."by_user_id", o."by_role", o."by_name")
        IS DISTINCT FROM (n."shipment_id", n."status", n."time", n."by_user_id", n."by_role", n."by_name")
      UNION ALL
      SELECT n."shipment_id", n."status", n."time", n."by_user_id", n."by_role"
      FROM "sc_old" o JOIN "sc_new" n ON n."id" = o."id"
      WHERE (o."shipment_id", o."status", o."time", o."by_user_id", o."by_role", o."by_name")
        IS DISTINCT FROM (n."shipment_id", n."status", n."time", n."by_user_id", n."by_role", n."by_name")
    ) x));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "shipment_checkpoints_courier_days_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "courier_days_touch"((SELECT coalesce(jsonb_agg(jsonb_build_object('shipment_id', o."shipment_id",
    'status', o."status", 'time', o."time", 'by_user_id', o."by_user_id", 'by_role', o."by_role")), '[]') FROM "sc_old" o));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A shipment given to another company (nothing in the server does it today): the days of its courier scans, in the
-- old company and in the new one, each in its own time zone.
CREATE FUNCTION "shipments_courier_days_company"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  companies uuid[];
  couriers uuid[];
  days date[];
BEGIN
  SELECT array_agg(c."id"), array_agg(x."by_user_id"), array_agg((x."time" AT TIME ZONE c."time_zone")::date)
  INTO companies, couriers, days
  FROM "shipment_checkpoints" x CROSS JOIN "users" c
  WHERE x."shipment_id" = NEW."id" AND x."by_role" = 'courier' AND x."by_user_id" IS NOT NULL
    AND c."id" IN (OLD."company_id", NEW."company_id");
  IF companies IS NOT NULL THEN
    PERFORM "courier_days_refresh"(companies, couriers, days);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A company's time zone changed: its days are other days now, counted again.
CREATE FUNCTION "users_courier_days_time_zone"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "courier_days_rebuild"(NEW."id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "shipment_checkpoints_courier_days_insert" AFTER INSERT ON "shipment_checkpoints"
  REFERENCING NEW TABLE AS "sc_new" FOR EACH STATEMENT EXECUTE FUNCTION "shipment_checkpoints_courier_days_insert"();
--> statement-breakpoint
CREATE TRIGGER "shipment_checkpoints_courier_days_update" AFTER UPDATE ON "shipment_checkpoints"
  REFERENCING OLD TABLE AS "sc_old" NEW TABLE AS "sc_new"
  FOR EACH STATEMENT EXECUTE FUNCTION "shipment_checkpoints_courier_days_update"();
--> statement-breakpoint
CREATE TRIGGER "shipment_checkpoints_courier_days_delete" AFTER DELETE ON "shipment_checkpoints"
  REFERENCING OLD TABLE AS "sc_old" FOR EACH STATEMENT EXECUTE FUNCTION "shipment_checkpoints_courier_days_delete"();
--> statement-breakpoint
CREATE TRIGGER "shipments_courier_days_company" AFTER UPDATE ON "shipments"
  FOR EACH ROW WHEN (OLD."company_id" IS DISTINCT FROM NEW."company_id")
  EXECUTE FUNCTION "shipments_courier_days_company"();
--> statement-breakpoint
CREATE TRIGGER "users_courier_days_time_zone" AFTER UPDATE ON "users"
  FOR EACH ROW WHEN (OLD."time_zone" IS DISTINCT FROM NEW."time_zone")
  EXECUTE FUNCTION "users_courier_days_time_zone"();
--> statement-breakpoint
-- The backfill: every day of every company from the scans stored before this migration.
SELECT "courier_days_rebuild"(NULL);
--> statement-breakpoint
ANALYZE "courier_days";
