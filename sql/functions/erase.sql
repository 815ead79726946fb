-- Erasure of a person's data (`discern erase`, docs/operations.md "Erasing a person"): every copy
-- discern holds of what a key names, removed in one transaction, and the services asked to delete
-- theirs as jobs (discern.erasure_steps; discern.advance_erasures follows them to the end).
-- Returns the request's id (NULL for a dry run) and the rows per part it removed, or would.
--
-- Keys: `subject` (an OOTO templateId, an Azure personId: results.subject_id, and any mention in
-- answers, params or errors), `plate` (compared without case, spaces or dashes in the typed
-- columns and entities, and as written or so normalised where mentioned), `photo` (a path as
-- stored), `content` (a photo's SHA-256, as `discern enqueue` keys it). A mention is the key as a
-- whole token: not inside a longer run of letters and digits, so erasing person-07 leaves
-- person-070 alone.
--
-- Removed: results (with their entities and reviews), jobs (their file names with them), trial
-- answers, cached batch summaries, listing checkpoints at the photo; redacted where they mention
-- it: batch events (webhook payloads), delivery errors, operator-log scopes, breaker and pause
-- reasons. The roll-ups keep their counts (they hold no subject, plate or path). Jobs of other
-- erasures' waiting steps are left to them. SECURITY DEFINER: the erase role needs no table rights.
CREATE OR REPLACE FUNCTION discern.erase(kind text, key text, dry_run boolean DEFAULT false, requested_by text DEFAULT current_user)
RETURNS TABLE (request_id bigint, part text, n bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    plate text := CASE WHEN kind = 'plate' THEN upper(regexp_replace(key, '[^A-Za-z0-9]', '', 'g')) END;
    token text;
    norm_token text;
    result_ids bigint[];
    job_ids bigint[];
    held bigint[];
    request bigint;
    counts jsonb := '{}';
    counted bigint;
    steps jsonb := '[]';
    step jsonb;
    number smallint := 0;
BEGIN
    IF kind IS NULL OR kind NOT IN ('subject', 'plate', 'photo', 'content') THEN
        RAISE EXCEPTION 'erase takes a subject, a plate, a photo or a content hash, not %', coalesce(quote_literal(kind), 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF key IS NULL OR length(key) NOT BETWEEN 3 AND 4096 OR key ~ '["\\[:cntrl:]]' OR (kind = 'content' AND key !~ '^[0-9a-fA-F]{64}$') THEN
        RAISE EXCEPTION 'an erasure key has 3 to 4,096 characters, no quote, backslash or control character (a content hash: 64 hex digits)'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The key as a whole token in a text: not preceded or followed by a letter or digit.
    token := '(^|[^A-Za-z0-9])(' || regexp_replace(key, '([^A-Za-z0-9 ])', '\\\1', 'g') || ')($|[^A-Za-z0-9])';
    norm_token := CASE WHEN plate IS NOT NULL AND plate <> key THEN '(^|[^A-Za-z0-9])(' || plate || ')($|[^A-Za-z0-9])' ELSE token END;

    -- What the services hold: asked before the rows that say so are gone.
    IF kind = 'subject' THEN
        SELECT coalesce(jsonb_agg(s ORDER BY s->>'backend', s->>'params'), '[]') INTO steps FROM (
            SELECT DISTINCT jsonb_build_object('backend', 'ooto', 'action', 'delete', 'params', jsonb_build_object('templateId', key)) AS s
            FROM discern.results r WHERE r.backend = 'ooto' AND r.subject_id = key
            UNION
            SELECT DISTINCT jsonb_build_object('backend', 'ooto', 'action', 'delete', 'params', jsonb_build_object('templateId', key))
            FROM discern.jobs j WHERE j.backend = 'ooto' AND j.action = 'enroll' AND j.params->>'templateId' = key
            UNION
            SELECT DISTINCT jsonb_build_object('backend', 'azure-face', 'action', 'delete', 'params',
                CASE WHEN g.grp LIKE 'large:%' THEN jsonb_build_object('largePersonGroupId', substr(g.grp, 7), 'personId', key)
                     ELSE jsonb_build_object('personGroupId', g.grp, 'personId', key) END)
            FROM (SELECT r.provenance->>'person_group' AS grp FROM discern.results r
                  WHERE r.backend = 'azure-face' AND r.subject_id = key AND r.action <> 'delete' AND r.provenance ? 'person_group') g
        ) x(s);
    END IF;

    SELECT coalesce(array_agg(r.id), '{}') INTO result_ids FROM discern.results r
    WHERE CASE kind
        WHEN 'subject' THEN r.subject_id = key OR r.raw_response::text ~ token OR r.details::text ~ token
        WHEN 'plate' THEN upper(regexp_replace(r.license_plate, '[^A-Za-z0-9]', '', 'g')) = plate
                          OR r.raw_response::text ~ token OR r.raw_response::text ~ norm_token
                          OR EXISTS (SELECT 1 FROM discern.entities e WHERE e.result_id = r.id
                                     AND upper(regexp_replace(e.license_plate, '[^A-Za-z0-9]', '', 'g')) = plate)
                          OR EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id
                                     AND upper(regexp_replace(c.license_plate, '[^A-Za-z0-9]', '', 'g')) = plate)
        WHEN 'photo' THEN r.image_path = key
        ELSE r.unique_key LIKE 'sha256:' || lower(key) || ':%' END;

    SELECT coalesce(array_agg(s.job_id), '{}') INTO held FROM discern.erasure_steps s WHERE s.state = 'waiting' AND s.job_id IS NOT NULL;
    SELECT coalesce(array_agg(j.id), '{}') INTO job_ids FROM discern.jobs j
    WHERE j.id <> ALL (held) AND (
        j.id IN (SELECT r.job_id FROM discern.results r WHERE r.id = ANY (result_ids))
        OR CASE kind
            WHEN 'subject' THEN j.params::text ~ token OR coalesce(j.last_error, '') ~ token OR j.error_history::text ~ token
            WHEN 'plate' THEN coalesce(j.last_error, '') ~ token OR j.error_history::text ~ token
            WHEN 'photo' THEN j.image_path = key
            ELSE j.unique_key LIKE 'sha256:' || lower(key) || ':%' END);

    IF NOT dry_run THEN
        -- A database made from sql/schema.sql has no salt yet: its first erasure makes one.
        INSERT INTO discern.erasure_salt DEFAULT VALUES ON CONFLICT DO NOTHING;
        INSERT INTO discern.erasure_requests (key_kind, key_digest, requested_by)
        VALUES (kind, encode(sha256(convert_to((SELECT s.salt FROM discern.erasure_salt s) || ':' || kind || ':'
                                               || coalesce(plate, CASE WHEN kind = 'content' THEN lower(key) ELSE key END), 'UTF8')), 'hex'),
                left(coalesce(requested_by, current_user), 200))
        RETURNING id INTO request;
    END IF;

    -- Each part: counted, and removed unless this is a dry run.
    counts := counts || jsonb_build_object('results', cardinality(result_ids));
    counts := counts || jsonb_build_object('entities', (SELECT count(*) FROM discern.entities e WHERE e.result_id = ANY (result_ids)));
    counts := counts || jsonb_build_object('reviews', (SELECT count(*) FROM discern.corrections c WHERE c.result_id = ANY (result_ids)));
    counts := counts || jsonb_build_object('jobs', cardinality(job_ids));
    SELECT count(*) INTO counted FROM discern.trial_results t
    WHERE t.production_result_id = ANY (result_ids) OR CASE kind
        WHEN 'subject' THEN t.subject_id = key OR coalesce(t.raw_response::text, '') ~ token
        WHEN 'plate' THEN upper(regexp_replace(t.license_plate, '[^A-Za-z0-9]', '', 'g')) = plate OR coalesce(t.raw_response::text, '') ~ token
        WHEN 'photo' THEN t.image_path = key
        ELSE false END;
    counts := counts || jsonb_build_object('trial_results', counted);
    IF NOT dry_run THEN
        DELETE FROM discern.trial_results t
        WHERE t.production_result_id = ANY (result_ids) OR CASE kind
            WHEN 'subject' THEN t.subject_id = key OR coalesce(t.raw_response::text, '') ~ token
            WHEN 'plate' THEN upper(regexp_replace(t.license_plate, '[^A-Za-z0-9]', '', 'g')) = plate OR coalesce(t.raw_response::text, '') ~ token
            WHEN 'photo' THEN t.image_path = key
            ELSE false END;
        DELETE FROM discern.results r WHERE r.id = ANY (result_ids);
        DELETE FROM discern.jobs j WHERE j.id = ANY (job_ids);
    END IF;
    IF kind = 'photo' THEN
        counts := counts || jsonb_build_object('near_duplicate_links', (SELECT count(*) FROM discern.jobs j WHERE j.near_duplicate_of = key));
        counts := counts || jsonb_build_object('listing_checkpoints',
            (SELECT count(*) FROM discern.listing_checkpoints l WHERE l.after_key = key OR l.listing = key));
        IF NOT dry_run THEN
            UPDATE discern.jobs j SET near_duplicate_of = NULL WHERE j.near_duplicate_of = key;
            DELETE FROM discern.listing_checkpoints l WHERE l.after_key = key OR l.listing = key;
        END IF;
    END IF;
    -- Mentions elsewhere, redacted in place: the row stays, the key does not.
    counts := counts || jsonb_build_object(
        'batch_events', (SELECT count(*) FROM discern.batch_events e WHERE e.report::text ~ token OR e.report::text ~ norm_token),
        'batch_summaries', (SELECT count(*) FROM discern.batch_summaries s WHERE s.summary::text ~ token OR s.summary::text ~ norm_token),
        'delivery_errors', (SELECT count(*) FROM discern.notification_deliveries d WHERE coalesce(d.last_error, '') ~ token),
        'operator_log', (SELECT count(*) FROM discern.operator_actions a WHERE a.scope ~ token OR a.scope ~ norm_token),
        'breakers', (SELECT count(*) FROM discern.service_breakers b WHERE coalesce(b.last_error, '') ~ token),
        'pauses', (SELECT count(*) FROM discern.paused_backends p WHERE coalesce(p.reason, '') ~ token));
    IF NOT dry_run THEN
        UPDATE discern.batch_events e
        SET report = regexp_replace(regexp_replace(e.report::text, token, '\1(erased)\3', 'g'), norm_token, '\1(erased)\3', 'g')::jsonb
        WHERE e.report::text ~ token OR e.report::text ~ norm_token;
        DELETE FROM discern.batch_summaries s WHERE s.summary::text ~ token OR s.summary::text ~ norm_token;
        UPDATE discern.notification_deliveries d SET last_error = regexp_replace(d.last_error, token, '\1(erased)\3', 'g')
        WHERE coalesce(d.last_error, '') ~ token;
        UPDATE discern.operator_actions a SET scope = regexp_replace(regexp_replace(a.scope, token, '\1(erased)\3', 'g'), norm_token, '\1(erased)\3', 'g')
        WHERE a.scope ~ token OR a.scope ~ norm_token;
        UPDATE discern.service_breakers b SET last_error = regexp_replace(b.last_error, token, '\1(erased)\3', 'g')
        WHERE coalesce(b.last_error, '') ~ token;
        UPDATE discern.paused_backends p SET reason = regexp_replace(p.reason, token, '\1(erased)\3', 'g') WHERE coalesce(p.reason, '') ~ token;

        -- The services' copies: one job each, first in line, with the usual retries.
        FOR step IN SELECT * FROM jsonb_array_elements(steps) LOOP
            number := number + 1;
            INSERT INTO discern.erasure_steps (request_id, step, backend, action, params)
            VALUES (request, number, step->>'backend', step->>'action', step->'params');
        END LOOP;
        PERFORM discern.advance_erasures();
        UPDATE discern.erasure_requests r SET removed = counts WHERE r.id = request;
        INSERT INTO discern.operator_actions (actor, action, scope, jobs)
        VALUES (left(coalesce(requested_by, current_user), 200), 'erase',
                format('erasure %s: a %s (digest %s…)', request, kind,
                       left((SELECT r.key_digest FROM discern.erasure_requests r WHERE r.id = request), 12)),
                cardinality(job_ids));
    END IF;

    RETURN QUERY SELECT request, p.key, p.value::bigint FROM jsonb_each_text(counts) p WHERE p.value::bigint > 0;
    RETURN QUERY SELECT request, 'service: ' || (s->>'backend') || ' ' || (s->>'action'), 1::bigint FROM jsonb_array_elements(steps) s;
END;
$$;
