-- Decision 136: the delivery summary columns of trackings (migration 0019) are kept by the database from the
-- tracking's checkpoints, for every statement that writes scans (the refresh engine's insertCheckpointsCounted, the
-- manual checkpoint, imports, tests and benches that insert with SQL). Hand-written: drizzle-kit does not generate
-- triggers. Then the backfill of the trackings stored before this migration.

-- New scans: first = min, newest = max, delivered = newest Delivered, failed attempt = any, exceptions = min/max, merged
-- with what the row holds (least/greatest ignore nulls), so scans arriving out of order give the same summary. A
-- re-stored scan is skipped by ON CONFLICT DO NOTHING and is not in the transition table: nothing changes.
CREATE FUNCTION "checkpoints_summary_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "trackings" t SET
    "first_scan_at" = least(t."first_scan_at", n.first_scan_at),
    "newest_scan_at" = greatest(t."newest_scan_at", n.newest_scan_at),
    "delivered_at" = greatest(t."delivered_at", n.delivered_at),
    "failed_attempt" = t."failed_attempt" OR n.failed_attempt,
    "first_exception_at" = least(t."first_exception_at", n.first_exception_at),
    "last_exception_at" = greatest(t."last_exception_at", n.last_exception_at)
  FROM (
    SELECT c."tracking_id", min(c."time") AS first_scan_at, max(c."time") AS newest_scan_at,
      max(c."time") FILTER (WHERE c."status" = 'Delivered') AS delivered_at,
      bool_or(c."status" = 'FailAttempt') AS failed_attempt,
      min(c."time") FILTER (WHERE c."status" = 'Exception') AS first_exception_at,
      max(c."time") FILTER (WHERE c."status" = 'Exception') AS last_exception_at
    FROM "checkpoints_new" c GROUP BY c."tracking_id"
  ) n
  WHERE t."id" = n."tracking_id";
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Scans removed or changed (a tracking's scans replaced, a cascade): the summary of those trackings computed again
-- from the scans they still have.
CREATE FUNCTION "checkpoints_summary_recompute"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "trackings" t SET
    "first_scan_at" = s.first_scan_at, "newest_scan_at" = s.newest_scan_at, "delivered_at" = s.delivered_at,
    "failed_attempt" = s.failed_attempt, "first_exception_at" = s.first_exception_at, "last_exception_at" = s.last_exception_at
  FROM (
    SELECT o."tracking_id", a.* FROM (SELECT DISTINCT "tracking_id" FROM "checkpoints_old") o
    CROSS JOIN LATERAL (
      SELECT min(c."time") AS first_scan_at, max(c."time") AS newest_scan_at,
        max(c."time") FILTER (WHERE c."status" = 'Delivered') AS delivered_at,
        coalesce(bool_or(c."status" = 'FailAttempt'), false) AS failed_attempt,
        min(c."time") FILTER (WHERE c."status" = 'Exception') AS first_exception_at,
        max(c."time") FILTER (WHERE c."status" = 'Exception') AS last_exception_at
      FROM "checkpoints" c WHERE c."tracking_id" = o."tracking_id"
    ) a
  ) s
  WHERE t."id" = s."tracking_id";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "checkpoints_summary_insert" AFTER INSERT ON "checkpoints"
  REFERENCING NEW TABLE AS "checkpoints_new" FOR EACH STATEMENT EXECUTE FUNCTION "checkpoints_summary_insert"();
--> statement-breakpoint
CREATE TRIGGER "checkpoints_summary_delete" AFTER DELETE ON "checkpoints"
  REFERENCING OLD TABLE AS "checkpoints_old" FOR EACH STATEMENT EXECUTE FUNCTION "checkpoints_summary_recompute"();
--> statement-breakpoint
CREATE TRIGGER "checkpoints_summary_update" AFTER UPDATE ON "checkpoints"
  REFERENCING OLD TABLE AS "checkpoints_old" FOR EACH STATEMENT EXECUTE FUNCTION "checkpoints_summary_recompute"();
--> statement-breakpoint
-- The backfill: every tracking stored before this migration gets the summary of the scans it has.
UPDATE "trackings" t SET
  "first_scan_at" = s.first_scan_at, "newest_scan_at" = s.newest_scan_at, "delivered_at" = s.delivered_at,
  "failed_attempt" = s.failed_attempt, "first_exception_at" = s.first_exception_at, "last_exception_at" = s.last_exception_at
FROM (
  SELECT c."tracking_id", min(c."time") AS first_scan_at, max(c."time") AS newest_scan_at,
    max(c."time") FILTER (WHERE c."status" = 'Delivered') AS delivered_at,
    bool_or(c."status" = 'FailAttempt') AS failed_attempt,
    min(c."time") FILTER (WHERE c."status" = 'Exception') AS first_exception_at,
    max(c."time") FILTER (WHERE c."status" = 'Exception') AS last_exception_at
  FROM "checkpoints" c GROUP BY c."tracking_id"
) s
WHERE t."id" = s."tracking_id";
--> statement-breakpoint
-- The new columns and indexes get their statistics now (the planner chooses by them; PGlite has no autovacuum).
ANALYZE "trackings";
