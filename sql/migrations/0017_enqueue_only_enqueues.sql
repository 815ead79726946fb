-- discern schema, version 17: the enqueue role can create only what discern.enqueue creates.
--
-- discern_enqueue held INSERT on every column of discern.jobs (issue 22): it could insert a job
-- already 'succeeded' that never ran (squatting the file's unique key, so the real file was
-- never analysed), or 'running' with a lease that never expires, and 5 MB of params that every
-- claim pulled into a worker.
--  * It may now set only the columns an enqueue sets: batch, backend, action, path, params,
--    priority, run_at, max_attempts, unique key. Everything else (state, attempts, leases,
--    errors, times) takes its default: a new job, 'available'.
--  * params is capped at 64 KB (as text): a template id, a person group, SDK metadata. Existing
--    rows are not checked (NOT VALID); new and updated ones are.
--  * Enrolling and deleting OOTO templates change the service's own records, not just read a
--    photo: they need the discern_enroll role (or the schema owner's rights), decided so that a
--    nightly enqueue cannot delete anyone's template by accident or on purpose.
ALTER TABLE discern.jobs ADD CONSTRAINT jobs_params_size CHECK (octet_length(params::text) <= 65536) NOT VALID;

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_enroll') THEN
        BEGIN
            CREATE ROLE discern_enroll NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'discern: cannot create role discern_enroll (no CREATEROLE); OOTO enrol and delete jobs need the schema owner';
        END;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_enqueue') THEN
        REVOKE INSERT ON discern.jobs FROM discern_enqueue;
        GRANT INSERT (batch_id, backend, action, image_path, params, priority, run_at, max_attempts, unique_key)
            ON discern.jobs TO discern_enqueue;
    END IF;
END;
$roles$;

-- Who may ask OOTO to change its records: members of discern_enroll, and the schema's owner
-- (migrations, superusers, the demo). Checked for the rows that need it only (WHEN), so a
-- nightly enqueue of photos pays nothing.
CREATE FUNCTION discern.check_template_rights() RETURNS trigger
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
CREATE TRIGGER jobs_template_rights BEFORE INSERT OR UPDATE OF backend, action ON discern.jobs
    FOR EACH ROW WHEN (NEW.backend = 'ooto' AND NEW.action IN ('enroll', 'add', 'delete'))
    EXECUTE FUNCTION discern.check_template_rights();
