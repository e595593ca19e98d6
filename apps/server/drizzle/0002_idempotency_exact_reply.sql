ALTER TABLE "idempotency_keys" ALTER COLUMN "body" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "request_hash" text DEFAULT '' NOT NULL;