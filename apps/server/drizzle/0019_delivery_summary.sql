DROP INDEX "checkpoints_status_time_idx";--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "first_scan_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "newest_scan_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "failed_attempt" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "first_exception_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "last_exception_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "origin_region" text GENERATED ALWAYS AS (coalesce(upper(substring("origin" from ',\s*([A-Za-z]{2,3})\y')), '')) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "destination_region" text GENERATED ALWAYS AS (coalesce(upper(substring("destination" from ',\s*([A-Za-z]{2,3})\y')), '')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "trackings_user_delivered_idx" ON "trackings" USING btree ("user_id","delivered_at","courier","origin_region","destination_region","first_scan_at","promised_by","failed_attempt") WHERE "trackings"."status" = 'Delivered';--> statement-breakpoint
CREATE INDEX "trackings_user_open_scan_idx" ON "trackings" USING btree ("user_id",coalesce("newest_scan_at", "created_at")) WHERE "trackings"."status" not in ('Delivered', 'Expired');--> statement-breakpoint
CREATE INDEX "trackings_user_exception_idx" ON "trackings" USING btree ("user_id","last_exception_at") WHERE "trackings"."last_exception_at" is not null;