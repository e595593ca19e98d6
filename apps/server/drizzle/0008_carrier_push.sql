CREATE TABLE "carrier_subscriptions" (
	"courier" text NOT NULL,
	"tid" text NOT NULL,
	"state" text NOT NULL,
	"subscription_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"renew_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "carrier_subscriptions_courier_tid_pk" PRIMARY KEY("courier","tid")
);
--> statement-breakpoint
ALTER TABLE "trackings" ADD COLUMN "last_pushed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "carrier_subscriptions_renew_idx" ON "carrier_subscriptions" USING btree ("renew_at");--> statement-breakpoint
CREATE INDEX "trackings_tid_idx" ON "trackings" USING btree ("tid");