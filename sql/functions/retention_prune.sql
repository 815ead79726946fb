-- Retention by service (discern.retention; `discern prune`): one chunk of at most batch_size of
-- `backend`'s results older than older_than, oldest first: with `what` = 'raw', their raw answers
-- dropped (raw_response '{}', redacted_at set; typed columns, details, entities and reviews
-- stay); with 'results', the results deleted (with their entities and reviews). The roll-ups keep
-- counting them. Like discern.prune it skips locked rows, waits at most 2 s and is planned per call.
CREATE OR REPLACE FUNCTION discern.retention_prune(what text, backend text, older_than interval, batch_size integer DEFAULT 10000)
RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '2s' AS $$
DECLARE
    changed integer;
BEGIN
    IF what = 'raw' THEN
        EXECUTE 'WITH doomed AS (
                     SELECT id FROM discern.results
                     WHERE backend = $3 AND created_at < $1 AND redacted_at IS NULL
                     ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
                 ), redacted AS (
                     UPDATE discern.results r SET raw_response = ''{}''::jsonb, redacted_at = now()
                     FROM doomed WHERE r.id = doomed.id RETURNING 1
                 )
                 SELECT count(*)::integer FROM redacted'
        INTO changed USING now() - older_than, batch_size, backend;
    ELSIF what = 'results' THEN
        EXECUTE 'WITH doomed AS (
                     SELECT id FROM discern.results WHERE backend = $3 AND created_at < $1
                     ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
                 ), deleted AS (
                     DELETE FROM discern.results r USING doomed WHERE r.id = doomed.id RETURNING 1
                 )
                 SELECT count(*)::integer FROM deleted'
        INTO changed USING now() - older_than, batch_size, backend;
    ELSE
        RAISE EXCEPTION 'retention_prune takes raw or results, not %', what USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN changed;
END;
$$;
