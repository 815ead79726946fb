-- Who may ask OOTO to change its records (enrol, add, delete templates): members of
-- discern_enroll, and the schema's owner (migrations, superusers, the demo). Column grants cannot
-- tell one action from another, so this trigger does: a nightly enqueue (discern_enqueue) cannot
-- delete anyone's template by accident or on purpose. Checked only for the rows that need it (the
-- trigger's WHEN), so an enqueue of photos pays nothing.
CREATE OR REPLACE FUNCTION discern.check_template_rights() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_enroll') AND pg_has_role(current_user, 'discern_enroll', 'MEMBER'))
       OR pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'discern'), 'MEMBER') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'an OOTO % job changes the service''s templates: it needs the discern_enroll role', NEW.action
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'GRANT discern_enroll TO the role that enqueues enrolments (docs/operations.md, roles)';
END;
$$;

DROP TRIGGER IF EXISTS jobs_template_rights ON discern.jobs;
CREATE TRIGGER jobs_template_rights BEFORE INSERT OR UPDATE OF backend, action ON discern.jobs
    FOR EACH ROW WHEN (NEW.backend = 'ooto' AND NEW.action IN ('enroll', 'add', 'delete'))
    EXECUTE FUNCTION discern.check_template_rights();
