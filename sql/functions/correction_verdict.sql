-- Fills corrections.verdict from `confirmed` for a writer that names no verdict (SQL that knows
-- only confirmed or corrected, not cannot_tell), so such inserts keep working and satisfy the
-- confirmed_or_corrected check. The console names the verdict itself.
CREATE OR REPLACE FUNCTION discern.correction_verdict() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.verdict := CASE WHEN NEW.confirmed THEN 'confirmed' ELSE 'corrected' END;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS corrections_verdict ON discern.corrections;
CREATE TRIGGER corrections_verdict BEFORE INSERT ON discern.corrections
FOR EACH ROW WHEN (NEW.verdict IS NULL) EXECUTE FUNCTION discern.correction_verdict();
