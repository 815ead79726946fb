-- Who may do what: least privilege, in one place. Applied after every function and view, and
-- again whenever this file changes. Four group roles (NOLOGIN) that login roles are granted
-- into (docs/operations.md):
--   discern_worker   runs `discern work` and the console: claims, completes and fails jobs,
--                    writes results, takes rate-limit slots, retries, cancels, reviews. Not the
--                    schema's owner: it cannot migrate or drop anything.
--   discern_enqueue  adds jobs (discern.enqueue, discern.enqueue_many, `discern enqueue`) and
--                    nothing else: it reads no results, no other job.
--   discern_reader   dashboards, reports, `discern console --read-only`: results, entities, jobs
--                    and the views, but not the services' raw answers (results.raw_response),
--                    the jobs' params or the results' provenance, which may carry template ids,
--                    person groups or SDK metadata.
--   discern_enroll   may enqueue OOTO enrol and delete jobs, which change the service's
--                    templates (discern.check_template_rights).
--   discern_erase    erases a person's data on request (discern.erase, `discern erase`) and
--                    reads the erasure log; nothing else. No other role may erase: not even
--                    the workers, which only move erasures on (discern.advance_erasures).
-- Roles belong to the whole cluster: creating them needs CREATEROLE. Without it (some managed
-- services), migrate says so and goes on; an administrator can create the roles and run
-- `discern migrate` again, or grant by hand from this file.
--
-- A new table or view is readable by discern_reader by default (ALTER DEFAULT PRIVILEGES
-- below); one that shows raw answers or params is revoked here, as discern.latest_results is.

DO $roles$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['discern_worker', 'discern_enqueue', 'discern_reader', 'discern_enroll', 'discern_erase'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
            EXCEPTION
                WHEN duplicate_object OR unique_violation THEN NULL;  -- created meanwhile by another database's migrate
                WHEN insufficient_privilege THEN
                    RAISE NOTICE 'discern: cannot create role % (no CREATEROLE); its grants are skipped', role_name;
            END;
        END IF;
    END LOOP;
END;
$roles$;

-- Functions only the workers call: claims, roll-ups, pauses, breakers, the batch summary's cache;
-- and the monitor's look at other sessions, granted to the readers below.
REVOKE EXECUTE ON FUNCTION discern.claim(text, integer, double precision, text[], boolean, integer),
                           discern.claim_jobs(text, integer, double precision, text[], boolean, integer),
                           discern.roll_up(), discern.recount_rollups(), discern.pause(text, text, text), discern.resume(text),
                           discern.trip_breaker(text, text, text, text, double precision),
                           discern.breaker_probe_failed(text, text, bigint, text, text, double precision, double precision),
                           discern.close_breaker(text, text, text),
                           discern.batch_summary(bigint), discern.mark_batches_changed(bigint[]),
                           discern.announce_batches(double precision), discern.batch_event_report(bigint),
                           discern.oldest_snapshot_seconds(),
                           discern.erase(text, text, boolean, text), discern.advance_erasures()
    FROM PUBLIC;

DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT USAGE ON SCHEMA discern TO discern_worker;
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA discern TO discern_worker;
        GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA discern TO discern_worker;
        GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA discern TO discern_worker;
        ALTER DEFAULT PRIVILEGES IN SCHEMA discern GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO discern_worker;
        ALTER DEFAULT PRIVILEGES IN SCHEMA discern GRANT USAGE, SELECT ON SEQUENCES TO discern_worker;
        ALTER DEFAULT PRIVILEGES IN SCHEMA discern GRANT EXECUTE ON FUNCTIONS TO discern_worker;
        REVOKE EXECUTE ON FUNCTION discern.erase(text, text, boolean, text) FROM discern_worker;
    END IF;

    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_erase') THEN
        GRANT USAGE ON SCHEMA discern TO discern_erase;
        GRANT EXECUTE ON FUNCTION discern.erase(text, text, boolean, text), discern.advance_erasures() TO discern_erase;
        GRANT SELECT ON discern.erasure_requests TO discern_erase;
        GRANT SELECT (request_id, step, backend, action, job_id, state, outcome, rounds, last_error_kind, done_at)
            ON discern.erasure_steps TO discern_erase;
        GRANT SELECT (id, state, attempts) ON discern.jobs TO discern_erase;
    END IF;

    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_enqueue') THEN
        GRANT USAGE ON SCHEMA discern TO discern_enqueue;
        -- discern.enqueue returns the new id (RETURNING needs SELECT on it); batches are named
        -- and created on the way; `discern enqueue` skips content a result already has. The
        -- columns a job is made of, and no other (not its state, not its attempts).
        GRANT INSERT (batch_id, backend, action, image_path, params, priority, run_at, max_attempts, unique_key,
                      perceptual_hash, near_duplicate_of, traceparent)
            ON discern.jobs TO discern_enqueue;
        GRANT SELECT (id) ON discern.jobs TO discern_enqueue;
        GRANT SELECT (id, name), INSERT ON discern.batches TO discern_enqueue;
        GRANT SELECT (unique_key) ON discern.results TO discern_enqueue;
        -- Where an interrupted listing of a bucket's prefix stopped, to list on from there.
        GRANT SELECT, INSERT, UPDATE, DELETE ON discern.listing_checkpoints TO discern_enqueue;
        GRANT EXECUTE ON FUNCTION discern.enqueue(text, text, text, jsonb, smallint, timestamptz, integer, text),
                                  discern.enqueue_many(text[], text, text, smallint, text, text[], jsonb),
                                  discern.batch_id(text) TO discern_enqueue;
    END IF;

    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT USAGE ON SCHEMA discern TO discern_reader;
        GRANT SELECT ON ALL TABLES IN SCHEMA discern TO discern_reader;
        -- Views run with their owner's rights: the one showing raw answers is not granted, and
        -- jobs and results are granted column by column, without params and raw_response.
        REVOKE SELECT ON discern.jobs, discern.results, discern.latest_results, discern.trial_results, discern.erasure_steps,
                         discern.erasure_salt FROM discern_reader;
        GRANT SELECT (request_id, step, backend, action, job_id, state, outcome, rounds, last_error_kind, done_at)
            ON discern.erasure_steps TO discern_reader;
        GRANT SELECT (id, batch_id, backend, action, image_path, state, priority, run_at, attempts, max_attempts,
                      lease_owner, lease_expires_at, error_kind, last_error, error_history, created_at, updated_at,
                      finished_at, unique_key, shared_crashes, solo_crashes, given_back, preparing_by, perceptual_hash, near_duplicate_of, traceparent)
            ON discern.jobs TO discern_reader;
        GRANT SELECT (id, job_id, batch_id, image_path, backend, action, category, subcategory, operator, fleet_id,
                      license_plate, confidence, text_identifiers, description, outcome, subject_id, details, api_calls,
                      unique_key, original_bytes, original_width, original_height, original_format, sent_bytes,
                      sent_width, sent_height, sent_format, jpeg_quality, encode_count, passed_through, prepare_ms,
                      analyze_ms, created_at, audit, service_host, model, model_version, discern_version, byte_budget, redacted_at)
            ON discern.results TO discern_reader;
        GRANT SELECT (trial_id, image_path, production_result_id, category, subcategory, operator, fleet_id, license_plate,
                      confidence, outcome, subject_id, api_calls, prepare_ms, analyze_ms, sent_bytes, service_host, model,
                      model_version, error_kind, error, created_at)
            ON discern.trial_results TO discern_reader;
        -- oldest_snapshot_seconds: the monitor's (reader role) look at pg_stat_activity, run as the
        -- schema's owner; only its number leaves it.
        GRANT EXECUTE ON FUNCTION discern.batch_summary(bigint), discern.wilson(bigint, bigint),
                                  discern.oldest_snapshot_seconds() TO discern_reader;
        ALTER DEFAULT PRIVILEGES IN SCHEMA discern GRANT SELECT ON TABLES TO discern_reader;
    END IF;
END;
$grants$;
