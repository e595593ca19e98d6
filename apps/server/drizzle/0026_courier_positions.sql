CREATE TABLE "courier_positions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"courier_id" uuid NOT NULL,
	"lat" double precision NOT NULL,
	"lng" double precision NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "courier_positions" ADD CONSTRAINT "courier_positions_courier_id_users_id_fk" FOREIGN KEY ("courier_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "courier_positions_courier_taken_uq" ON "courier_positions" USING btree ("courier_id","taken_at");