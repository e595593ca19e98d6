CREATE TABLE "exception_scans" (
	"checkpoint_id" bigint PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"tracking_id" uuid NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"cause" text NOT NULL
);
--> statement-breakpoint
DROP INDEX "trackings_user_exception_idx";--> statement-breakpoint
ALTER TABLE "exception_scans" ADD CONSTRAINT "exception_scans_checkpoint_id_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."checkpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exception_scans_user_time_idx" ON "exception_scans" USING btree ("user_id","time","tracking_id","cause");