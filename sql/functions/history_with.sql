-- A job's error history with one more entry: the last 100 entries, each error cut to 500
-- characters. The worker's fail and rescue statements append through it, so whatever happens to
-- a job its row stays a few tens of kilobytes (discern.retry can start a job over many times, and
-- each start may fail many times).
CREATE OR REPLACE FUNCTION discern.history_with(history jsonb, entry jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb)
    FROM (
        SELECT e, n FROM jsonb_array_elements(
            history || jsonb_build_array(entry || jsonb_build_object('error', left(entry->>'error', 500)))
        ) WITH ORDINALITY AS t(e, n)
        ORDER BY n DESC LIMIT 100
    ) AS kept;
$$;
