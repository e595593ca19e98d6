DROP INDEX "delivery_days_read_idx";--> statement-breakpoint
DROP INDEX "trackings_user_delivered_idx";--> statement-breakpoint
ALTER TABLE "delivery_days" ADD COLUMN "service" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "service" text;--> statement-breakpoint
CREATE INDEX "delivery_days_read_idx" ON "delivery_days" USING btree ("user_id","day","courier","origin_region","destination_region","service","transit_hour","delivered","promised","on_time","first_attempt");--> statement-breakpoint
CREATE INDEX "trackings_user_delivered_idx" ON "trackings" USING btree ("user_id","delivered_at","courier","origin_region","destination_region","first_scan_at","promised_by","failed_attempt","service") WHERE "trackings"."status" = 'Delivered';--> statement-breakpoint
ALTER TABLE "delivery_days" DROP CONSTRAINT "delivery_days_pk";
--> statement-breakpoint
ALTER TABLE "delivery_days" ADD CONSTRAINT "delivery_days_pk" PRIMARY KEY("user_id","day","courier","origin_region","destination_region","service","transit_hour");--> statement-breakpoint
-- Decision 158: the delivery_days rollup (decision 142) counts per service too, '' for a parcel whose service is
-- unknown. The triggers of migration 0023, with the service in the row a parcel counts in. Hand-written: drizzle-kit
-- does not generate triggers. No backfill: no tracking had a service before this migration, and the rows counted so
-- far took '' with the column.
CREATE OR REPLACE FUNCTION "trackings_delivery_days"() RETURNS trigger LANGUAGE plpgsql AS $$
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
      AND d."destination_region" = OLD."destination_region" AND d."service" = coalesce(OLD."service", '')
      AND d."transit_hour" = h;
    DELETE FROM "delivery_days" d
    WHERE d."user_id" = OLD."user_id" AND d."day" = (OLD."delivered_at" AT TIME ZONE 'UTC')::date
      AND d."courier" = OLD."courier" AND d."origin_region" = OLD."origin_region"
      AND d."destination_region" = OLD."destination_region" AND d."service" = coalesce(OLD."service", '')
      AND d."transit_hour" = h AND d."delivered" <= 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."status" = 'Delivered' AND NEW."delivered_at" IS NOT NULL THEN
    INSERT INTO "delivery_days" AS d ("user_id", "day", "courier", "origin_region", "destination_region", "service",
      "transit_hour", "delivered", "promised", "on_time", "first_attempt")
    VALUES (NEW."user_id", (NEW."delivered_at" AT TIME ZONE 'UTC')::date, NEW."courier", NEW."origin_region",
      NEW."destination_region", coalesce(NEW."service", ''),
      coalesce(floor(date_part('epoch', NEW."delivered_at" - NEW."first_scan_at") / 3600)::int, -1),
      1, (NEW."promised_by" IS NOT NULL)::int, coalesce(NEW."delivered_at" <= NEW."promised_by", false)::int,
      (NOT NEW."failed_attempt")::int)
    ON CONFLICT ("user_id", "day", "courier", "origin_region", "destination_region", "service", "transit_hour") DO UPDATE SET
      "delivered" = d."delivered" + excluded."delivered",
      "promised" = d."promised" + excluded."promised",
      "on_time" = d."on_time" + excluded."on_time",
      "first_attempt" = d."first_attempt" + excluded."first_attempt";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The service joins the columns whose change moves a parcel between rows.
DROP TRIGGER "trackings_delivery_days_update" ON "trackings";
--> statement-breakpoint
CREATE TRIGGER "trackings_delivery_days_update" AFTER UPDATE ON "trackings"
  FOR EACH ROW WHEN (
    OLD."status" IS DISTINCT FROM NEW."status" OR OLD."delivered_at" IS DISTINCT FROM NEW."delivered_at"
    OR OLD."first_scan_at" IS DISTINCT FROM NEW."first_scan_at" OR OLD."promised_by" IS DISTINCT FROM NEW."promised_by"
    OR OLD."failed_attempt" IS DISTINCT FROM NEW."failed_attempt" OR OLD."courier" IS DISTINCT FROM NEW."courier"
    OR OLD."origin_region" IS DISTINCT FROM NEW."origin_region"
    OR OLD."destination_region" IS DISTINCT FROM NEW."destination_region" OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
    OR OLD."service" IS DISTINCT FROM NEW."service")
  EXECUTE FUNCTION "trackings_delivery_days"();
