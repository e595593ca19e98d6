CREATE TABLE "rate_limit_slots" (
	"key" text NOT NULL,
	"slot" integer NOT NULL,
	"granted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"reset_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "rate_limit_slots_key_slot_idx" ON "rate_limit_slots" USING btree ("key","slot");--> statement-breakpoint
CREATE INDEX "rate_limit_slots_key_granted_idx" ON "rate_limit_slots" USING btree ("key","granted_at");