-- Deletes jobs that are over without a result (dead or cancelled); returns how many. A waiting or
-- running job must be cancelled first, and a succeeded job stays: its result is the product, and
-- `discern prune` ages it out. The roll-ups forget deleted jobs, as they do pruned ones.
-- `discern delete`, the console's Jobs page and psql users call it.
CREATE OR REPLACE FUNCTION discern.delete_jobs(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH deleted AS (
        DELETE FROM discern.jobs WHERE id = ANY(job_ids) AND state IN ('dead', 'cancelled') RETURNING 1
    )
    SELECT count(*)::integer FROM deleted;
$$;
