-- Decision 142: delivery_days (migration 0022) is kept by the database from the delivery summary of trackings
-- (decision 136), in the statement that changes a tracking, so in its transaction: a parcel counts in the row of
-- its account, UTC day of its delivery scan, carrier, lane and whole hour of transit while its status is Delivered
-- and it has a delivery scan, exactly as the transit statement selects it. Hand-written: drizzle-kit does not
-- generate triggers. Then the backfill of the parcels delivered before this migration.

-- A tracking's contribution leaves the row it counted in (OLD) and joins the one it counts in now (NEW); a row
-- that counts nobody any more is removed.
CREATE FUNCTION "trackings_delivery_days"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  h integer;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."status" = 'Delivered' AND OLD."delivered_at" IS NOT NULL THEN
    h := coalesce(floor(date_part('epoch', OLD."delivered_at" - OLD."first_scan_at") / 3600)::int, -1);
    UPDATE "delivery_days" d SET
      "delivered" = d."delivered" - 1,
      "promised" = d."promised" - (OLD."promised_by" IS NOT NULL)::int,
      "on_time" = d."on_time" - coalesce(OLD."delivered_at" <= OLD."promised_by", false)::int,
      "first_attempt" = d."first_attempt" - (NOT OLD."failed_attempt")::int
    WHERE d."user_id" = OLD."user_id" AND d."day" = (OLD."delivered_at" AT TIME ZONE 'UTC')::date
      AND d."courier" = OLD."courier" AND d."origin_region" = OLD."origin_region"
      AND d."destination_region" = OLD."destination_region" AND d."transit_hour" = h;
    DELETE FROM "delivery_days" d
    WHERE d."user_id" = OLD."user_id" AND d."day" = (OLD."delivered_at" AT TIME ZONE 'UTC')::date
      AND d."courier" = OLD."courier" AND d."origin_region" = OLD."origin_region"
      AND d."destination_region" = OLD."destination_region" AND d."transit_hour" = h AND d."delivered" <= 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."status" = 'Delivered' AND NEW."delivered_at" IS NOT NULL THEN
    INSERT INTO "delivery_days" AS d ("user_id", "day", "courier", "origin_region", "destination_region", "transit_hour",
      "delivered", "promised", "on_time", "first_attempt")
    VALUES (NEW."user_id", (NEW."delivered_at" AT TIME ZONE 'UTC')::date, NEW."courier", NEW."origin_region",
      NEW."destination_region", coalesce(floor(date_part('epoch', NEW."delivered_at" - NEW."first_scan_at") / 3600)::int, -1),
      1, (NEW."promised_by" IS NOT NULL)::int, coalesce(NEW."delivered_at" <= NEW."promised_by", false)::int,
      (NOT NEW."failed_attempt")::int)
    ON CONFLICT ("user_id", "day", "courier", "origin_region", "destination_region", "transit_hour") DO UPDATE SET
      "delivered" = d."delivered" + excluded."delivered",
      "promised" = d."promised" + excluded."promised",
      "on_time" = d."on_time" + excluded."on_time",
      "first_attempt" = d."first_attempt" + excluded."first_attempt";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "trackings_delivery_days_insert" AFTER INSERT ON "trackings"
  FOR EACH ROW WHEN (NEW."status" = 'Delivered' AND NEW."delivered_at" IS NOT NULL)
  EXECUTE FUNCTION "trackings_delivery_days"();
--> statement-breakpoint
-- Only the updates that move a parcel in or out of the figures, or between their rows: the refresh engine's
-- frequent updates of its own columns (next check, errors) do not run the function.
CREATE TRIGGER "trackings_delivery_days_update" AFTER UPDATE ON "trackings"
  FOR EACH ROW WHEN (
    OLD."status" IS DISTINCT FROM NEW."status" OR OLD."delivered_at" IS DISTINCT FROM NEW."delivered_at"
    OR OLD."first_scan_at" IS DISTINCT FROM NEW."first_scan_at" OR OLD."promised_by" IS DISTINCT FROM NEW."promised_by"
    OR OLD."failed_attempt" IS DISTINCT FROM NEW."failed_attempt" OR OLD."courier" IS DISTINCT FROM NEW."courier"
    OR OLD."origin_region" IS DISTINCT FROM NEW."origin_region"
    OR OLD."destination_region" IS DISTINCT FROM NEW."destination_region" OR OLD."user_id" IS DISTINCT FROM NEW."user_id")
  EXECUTE FUNCTION "trackings_delivery_days"();
--> statement-breakpoint
CREATE TRIGGER "trackings_delivery_days_delete" AFTER DELETE ON "trackings"
  FOR EACH ROW WHEN (OLD."status" = 'Delivered' AND OLD."delivered_at" IS NOT NULL)
  EXECUTE FUNCTION "trackings_delivery_days"();
--> statement-breakpoint
-- The backfill: the parcels delivered before this migration, counted as the triggers count them.
INSERT INTO "delivery_days" ("user_id", "day", "courier", "origin_region", "destination_region", "transit_hour",
  "delivered", "promised", "on_time", "first_attempt")
SELECT t."user_id", (t."delivered_at" AT TIME ZONE 'UTC')::date, t."courier", t."origin_region", t."destination_region",
  coalesce(floor(date_part('epoch', t."delivered_at" - t."first_scan_at") / 3600)::int, -1),
  count(*)::int, (count(*) FILTER (WHERE t."promised_by" IS NOT NULL))::int,
  (count(*) FILTER (WHERE t."delivered_at" <= t."promised_by"))::int, (count(*) FILTER (WHERE NOT t."failed_attempt"))::int
FROM "trackings" t
WHERE t."status" = 'Delivered' AND t."delivered_at" IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
ANALYZE "delivery_days";
