CREATE TABLE "delivery_plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" uuid NOT NULL,
	"date" text NOT NULL,
	"time_zone" text NOT NULL,
	"settings" jsonb NOT NULL,
	"unplanned" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_stops" (
	"plan_id" uuid NOT NULL,
	"shipment_id" uuid NOT NULL,
	"courier_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"eta" timestamp with time zone NOT NULL,
	"window_from" timestamp with time zone NOT NULL,
	"window_to" timestamp with time zone NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"late" boolean DEFAULT false NOT NULL,
	CONSTRAINT "plan_stops_plan_id_shipment_id_pk" PRIMARY KEY("plan_id","shipment_id")
);
--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "window_from" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "window_to" text;--> statement-breakpoint
ALTER TABLE "delivery_plans" ADD CONSTRAINT "delivery_plans_company_id_users_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_stops" ADD CONSTRAINT "plan_stops_plan_id_delivery_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."delivery_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_stops" ADD CONSTRAINT "plan_stops_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_stops" ADD CONSTRAINT "plan_stops_courier_id_users_id_fk" FOREIGN KEY ("courier_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "delivery_plans_company_date_uq" ON "delivery_plans" USING btree ("company_id","date");--> statement-breakpoint
CREATE INDEX "plan_stops_shipment_idx" ON "plan_stops" USING btree ("shipment_id");