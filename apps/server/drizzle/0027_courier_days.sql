CREATE TABLE "courier_days" (
	"company_id" uuid NOT NULL,
	"courier_id" uuid NOT NULL,
	"day" date NOT NULL,
	"by_name" text,
	"stops" integer NOT NULL,
	"delivered" integer NOT NULL,
	"on_time" integer NOT NULL,
	"failed" integer NOT NULL,
	CONSTRAINT "courier_days_pk" PRIMARY KEY("company_id","day","courier_id")
);
--> statement-breakpoint
ALTER TABLE "courier_days" ADD CONSTRAINT "courier_days_company_id_users_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "courier_days_courier_day_idx" ON "courier_days" USING btree ("courier_id","day");--> statement-breakpoint
CREATE INDEX "shipment_checkpoints_courier_time_idx" ON "shipment_checkpoints" USING btree ("by_user_id","time");