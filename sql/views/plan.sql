-- The night's plan without a window, for dashboards: per service, the work queued, its pace and
-- what binds it, the finish range, the cost forecast and this month's spend
-- (sql/functions/plan_until.sql). With a window: SELECT * FROM discern.plan_until('06:00 tomorrow'),
-- or any timestamptz.
CREATE OR REPLACE VIEW discern.plan AS
SELECT * FROM discern.plan_until(NULL);
