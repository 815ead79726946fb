-- Picks a result for the audit sample when its writer did not (audit IS NULL): the backend's
-- audit_settings row, else '*', through discern.audit_pick. The worker's completion makes the pick
-- itself, inline (cheaper than a trigger call per row); this trigger covers every other writer, so
-- the sample is the same however results are written.
CREATE OR REPLACE FUNCTION discern.mark_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    chosen discern.audit_settings;
BEGIN
    SELECT * INTO chosen FROM discern.audit_settings WHERE backend IN (NEW.backend, '*')
    ORDER BY backend = '*' LIMIT 1;
    NEW.audit := chosen.backend IS NOT NULL AND discern.audit_pick(coalesce(NEW.job_id, NEW.id), chosen.rate, chosen.seed);
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS results_mark_audit ON discern.results;
CREATE TRIGGER results_mark_audit BEFORE INSERT ON discern.results
FOR EACH ROW WHEN (NEW.audit IS NULL) EXECUTE FUNCTION discern.mark_audit();
