-- Decision 147: exception_scans (migration 0024) is kept by the database from checkpoints, in the statement that
-- writes scans, so in its transaction, whoever writes them (the refresh engine, the manual checkpoint, imports, tests
-- and benches that insert with SQL): one row per Exception scan with its account, parcel, time and the carrier's
-- words trimmed and cut to 200 characters (EXCEPTION_CAUSE_CHARS in schema.ts). A scan's row goes with the scan (the
-- foreign key cascades, and a tracking's delete cascades to its scans). Hand-written: drizzle-kit does not generate
-- triggers. Then the backfill of the exception scans stored before this migration.

-- New scans: their exception scans, with the account of their tracking. A re-stored scan is skipped by ON CONFLICT DO
-- NOTHING and is not in the transition table.
CREATE FUNCTION "checkpoints_exception_scans_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "exception_scans" ("checkpoint_id", "user_id", "tracking_id", "time", "cause")
  SELECT c."id", t."user_id", c."tracking_id", c."time", rtrim(left(btrim(c."message"), 200))
  FROM "checkpoints_new" c JOIN "trackings" t ON t."id" = c."tracking_id"
  WHERE c."status" = 'Exception';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Scans changed (nothing in the server updates a scan today; a statement by hand may): their rows are written again.
CREATE FUNCTION "checkpoints_exception_scans_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "exception_scans" e USING "checkpoints_old" o WHERE e."checkpoint_id" = o."id";
  INSERT INTO "exception_scans" ("checkpoint_id", "user_id", "tracking_id", "time", "cause")
  SELECT c."id", t."user_id", c."tracking_id", c."time", rtrim(left(btrim(c."message"), 200))
  FROM "checkpoints_new" c JOIN "trackings" t ON t."id" = c."tracking_id"
  WHERE c."status" = 'Exception';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A tracking given to another account (nothing in the server does it today) takes its exception scans along.
CREATE FUNCTION "trackings_exception_scans_account"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "exception_scans" e SET "user_id" = NEW."user_id"
  WHERE e."checkpoint_id" IN (SELECT c."id" FROM "checkpoints" c WHERE c."tracking_id" = NEW."id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "checkpoints_exception_scans_insert" AFTER INSERT ON "checkpoints"
  REFERENCING NEW TABLE AS "checkpoints_new" FOR EACH STATEMENT EXECUTE FUNCTION "checkpoints_exception_scans_insert"();
--> statement-breakpoint
CREATE TRIGGER "checkpoints_exception_scans_update" AFTER UPDATE ON "checkpoints"
  REFERENCING OLD TABLE AS "checkpoints_old" NEW TABLE AS "checkpoints_new"
  FOR EACH STATEMENT EXECUTE FUNCTION "checkpoints_exception_scans_update"();
--> statement-breakpoint
CREATE TRIGGER "trackings_exception_scans_account" AFTER UPDATE ON "trackings"
  FOR EACH ROW WHEN (OLD."user_id" IS DISTINCT FROM NEW."user_id")
  EXECUTE FUNCTION "trackings_exception_scans_account"();
--> statement-breakpoint
-- The backfill: every exception scan stored before this migration, in the order of time (a period's rows then sit
-- together in the table).
INSERT INTO "exception_scans" ("checkpoint_id", "user_id", "tracking_id", "time", "cause")
SELECT c."id", t."user_id", c."tracking_id", c."time", rtrim(left(btrim(c."message"), 200))
FROM "checkpoints" c JOIN "trackings" t ON t."id" = c."tracking_id"
WHERE c."status" = 'Exception'
ORDER BY c."time";
--> statement-breakpoint
ANALYZE "exception_scans";
