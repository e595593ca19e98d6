CREATE TABLE "billing_accounts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"balance_cents" bigint DEFAULT 0 NOT NULL,
	"gateway" text,
	"customer_id" text,
	"payment_method_token" text,
	"cardholder_name" text,
	"card_type" text,
	"last4" text,
	"masked_number" text,
	"expiration_month" text,
	"expiration_year" text,
	"image_url" text,
	"auto_recharge_cents" integer,
	"minimum_balance_cents" integer,
	"recharge_failures" integer DEFAULT 0 NOT NULL,
	"recharge_retry_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text,
	"gateway" text NOT NULL,
	"transaction_id" text,
	"card_type" text,
	"masked_number" text,
	"cardholder_name" text,
	"processor_response_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_idempotency_uq" ON "payments" USING btree ("user_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "payments_user_idx" ON "payments" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_one_recharge_uq" ON "payments" USING btree ("user_id") WHERE kind = 'auto_recharge' and status in ('pending', 'processing');--> statement-breakpoint
-- Existing accounts start with the balance their ledger already sums to.
INSERT INTO "billing_accounts" ("user_id", "balance_cents") SELECT "user_id", sum("amount_cents") FROM "ledger_entries" GROUP BY "user_id";
