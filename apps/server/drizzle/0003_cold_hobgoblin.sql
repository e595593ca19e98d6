CREATE TABLE "shipment_checkpoints" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"shipment_id" uuid NOT NULL,
	"status" text NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"lat" double precision,
	"long" double precision,
	"time" timestamp with time zone NOT NULL,
	"by_user_id" uuid,
	"by_role" text NOT NULL,
	"by_name" text DEFAULT '' NOT NULL,
	"pod_recipient_name" text,
	"pod_signature" "bytea",
	"pod_photo" "bytea",
	"pod_photo_type" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipment_parcels" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"shipment_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"ref" text DEFAULT '' NOT NULL,
	"quantity" integer DEFAULT 1 NOT NULL,
	"name" text NOT NULL,
	"length" double precision NOT NULL,
	"width" double precision NOT NULL,
	"height" double precision NOT NULL,
	"weight" double precision NOT NULL,
	"distance_unit" text DEFAULT 'in' NOT NULL,
	"weight_unit" text DEFAULT 'lb' NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" uuid NOT NULL,
	"tid" text NOT NULL,
	"status" text DEFAULT 'InfoReceived' NOT NULL,
	"order_id" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"expected" timestamp with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"origin" jsonb NOT NULL,
	"destination" jsonb NOT NULL,
	"courier_id" uuid,
	"courier" text DEFAULT '' NOT NULL,
	"courier_email" text DEFAULT '' NOT NULL,
	"last_checkpoint" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tracking_events" ALTER COLUMN "tracking_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking_events" ADD COLUMN "shipment_id" uuid;--> statement-breakpoint
ALTER TABLE "shipment_checkpoints" ADD CONSTRAINT "shipment_checkpoints_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_parcels" ADD CONSTRAINT "shipment_parcels_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_company_id_users_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_courier_id_users_id_fk" FOREIGN KEY ("courier_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "shipment_checkpoints_shipment_time_idx" ON "shipment_checkpoints" USING btree ("shipment_id","time");--> statement-breakpoint
CREATE INDEX "shipment_parcels_shipment_idx" ON "shipment_parcels" USING btree ("shipment_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "shipments_tid_uq" ON "shipments" USING btree ("tid");--> statement-breakpoint
CREATE INDEX "shipments_company_created_idx" ON "shipments" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "shipments_courier_created_idx" ON "shipments" USING btree ("courier_id","created_at","id");--> statement-breakpoint
ALTER TABLE "tracking_events" ADD CONSTRAINT "tracking_events_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tracking_events_shipment_idx" ON "tracking_events" USING btree ("shipment_id");--> statement-breakpoint
ALTER TABLE "tracking_events" ADD CONSTRAINT "tracking_events_subject_ck" CHECK (("tracking_events"."tracking_id" is null) <> ("tracking_events"."shipment_id" is null));