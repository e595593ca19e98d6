ALTER TABLE "trackings" ADD COLUMN "estimated_delivery" jsonb;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "promised_by" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "late_for" text;