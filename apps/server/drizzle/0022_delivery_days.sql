CREATE TABLE "delivery_days" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"courier" text NOT NULL,
	"origin_region" text NOT NULL,
	"destination_region" text NOT NULL,
	"transit_hour" integer NOT NULL,
	"delivered" integer NOT NULL,
	"promised" integer NOT NULL,
	"on_time" integer NOT NULL,
	"first_attempt" integer NOT NULL,
	CONSTRAINT "delivery_days_pk" PRIMARY KEY("user_id","day","courier","origin_region","destination_region","transit_hour")
);
--> statement-breakpoint
ALTER TABLE "delivery_days" ADD CONSTRAINT "delivery_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;