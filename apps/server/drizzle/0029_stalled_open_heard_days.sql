CREATE TABLE "open_heard_days" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"parcels" integer NOT NULL,
	CONSTRAINT "open_heard_days_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
ALTER TABLE "open_heard_days" ADD CONSTRAINT "open_heard_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_days_read_idx" ON "delivery_days" USING btree ("user_id","day","courier","origin_region","destination_region","transit_hour","delivered","promised","on_time","first_attempt");
--> statement-breakpoint
-- Decision 157: open_heard_days (above) is kept by the database from trackings, in the statement that writes them, so
-- in its transaction, whoever writes them: per account and UTC day of last_heard_at (the newest scan, else the adding,
-- decision 142), how many parcels are open (status not Delivered nor Expired, as the stalled count selects them).
-- Statement-level triggers: a statement's parcels are netted per (account, day) first (a parcel that stays open on
-- its day, as the refresh engine's leases leave it, nets to nothing), then each row is changed once, in the order of
-- its key, so writers of the same rows at once wait for each other in one order and never deadlock within a statement.
-- Hand-written: drizzle-kit does not generate triggers. Then the backfill.

-- Add n parcels to each (account, day) (n < 0: parcels leaving it); a row that counts nobody any more is removed. A
-- parcel leaving a row is counted in it, so the row exists; the one exception is an account being deleted, whose rows
-- may go by their foreign key before its parcels do: nothing is written for it (a row would point at no account).
CREATE FUNCTION "open_heard_days_add"("p_user" uuid[], "p_day" date[], "p_n" integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "open_heard_days" AS d ("user_id", "day", "parcels")
  SELECT k."user_id", k."day", k."n" FROM unnest("p_user", "p_day", "p_n") AS k("user_id", "day", "n")
  WHERE k."n" > 0 OR EXISTS (SELECT 1 FROM "open_heard_days" x WHERE x."user_id" = k."user_id" AND x."day" = k."day")
  ORDER BY 1, 2
  ON CONFLICT ("user_id", "day") DO UPDATE SET "parcels" = d."parcels" + excluded."parcels";
  DELETE FROM "open_heard_days" d USING unnest("p_user", "p_day") AS k("user_id", "day")
  WHERE d."user_id" = k."user_id" AND d."day" = k."day" AND d."parcels" = 0;
END $$;
--> statement-breakpoint
CREATE FUNCTION "trackings_open_heard_days_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  us uuid[];
  ds date[];
  ns integer[];
BEGIN
  SELECT array_agg(x."user_id"), array_agg(x."day"), array_agg(x."n") INTO us, ds, ns FROM (
    SELECT n."user_id", (n."last_heard_at" AT TIME ZONE 'UTC')::date AS "day", count(*)::int AS "n"
    FROM "oh_new" n WHERE n."status" NOT IN ('Delivered', 'Expired') GROUP BY 1, 2
  ) x;
  IF us IS NOT NULL THEN
    PERFORM "open_heard_days_add"(us, ds, ns);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A parcel leaves the row it counted in (OLD, when it was open) and joins the one it counts in now (NEW, when open):
-- a status moving to Delivered or Expired (or back), a newer scan (last_heard_at), a tracking given to another account.
CREATE FUNCTION "trackings_open_heard_days_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  us uuid[];
  ds date[];
  ns integer[];
BEGIN
  SELECT array_agg(x."user_id"), array_agg(x."day"), array_agg(x."n") INTO us, ds, ns FROM (
    SELECT c."user_id", c."day", sum(c."n")::int AS "n" FROM (
      SELECT o."user_id", (o."last_heard_at" AT TIME ZONE 'UTC')::date AS "day", -1 AS "n"
      FROM "oh_old" o WHERE o."status" NOT IN ('Delivered', 'Expired')
      UNION ALL
      SELECT n."user_id", (n."last_heard_at" AT TIME ZONE 'UTC')::date, 1
      FROM "oh_new" n WHERE n."status" NOT IN ('Delivered', 'Expired')
    ) c GROUP BY 1, 2 HAVING sum(c."n") <> 0
  ) x;
  IF us IS NOT NULL THEN
    PERFORM "open_heard_days_add"(us, ds, ns);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "trackings_open_heard_days_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  us uuid[];
  ds date[];
  ns integer[];
BEGIN
  SELECT array_agg(x."user_id"), array_agg(x."day"), array_agg(x."n") INTO us, ds, ns FROM (
    SELECT o."user_id", (o."last_heard_at" AT TIME ZONE 'UTC')::date AS "day", -count(*)::int AS "n"
    FROM "oh_old" o WHERE o."status" NOT IN ('Delivered', 'Expired') GROUP BY 1, 2
  ) x;
  IF us IS NOT NULL THEN
    PERFORM "open_heard_days_add"(us, ds, ns);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "trackings_open_heard_days_insert" AFTER INSERT ON "trackings"
  REFERENCING NEW TABLE AS "oh_new" FOR EACH STATEMENT EXECUTE FUNCTION "trackings_open_heard_days_insert"();
--> statement-breakpoint
CREATE TRIGGER "trackings_open_heard_days_update" AFTER UPDATE ON "trackings"
  REFERENCING OLD TABLE AS "oh_old" NEW TABLE AS "oh_new" FOR EACH STATEMENT EXECUTE FUNCTION "trackings_open_heard_days_update"();
--> statement-breakpoint
CREATE TRIGGER "trackings_open_heard_days_delete" AFTER DELETE ON "trackings"
  REFERENCING OLD TABLE AS "oh_old" FOR EACH STATEMENT EXECUTE FUNCTION "trackings_open_heard_days_delete"();
--> statement-breakpoint
-- The backfill: the open parcels stored before this migration, counted as the triggers count them.
INSERT INTO "open_heard_days" ("user_id", "day", "parcels")
SELECT t."user_id", (t."last_heard_at" AT TIME ZONE 'UTC')::date, count(*)::int
FROM "trackings" t WHERE t."status" NOT IN ('Delivered', 'Expired')
GROUP BY 1, 2 ORDER BY 1, 2;
--> statement-breakpoint
ANALYZE "open_heard_days";
