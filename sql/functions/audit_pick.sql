-- Whether a result is in the audit sample: a hash of the job id (the result id for a result
-- without a job) with the seed, below the rate, so the same job and seed give the same answer
-- anywhere. The worker's completion statement calls it for every result it writes; the
-- results_mark_audit trigger (discern.mark_audit) calls it for other writers. Each argument is
-- used once, so PostgreSQL inlines the function even when the rate is a subquery, as the
-- completion passes it; called per result it took 8 % of a completion's CPU (perf). There is no
-- `rate > 0` test: a hash fraction is never below 0.
CREATE OR REPLACE FUNCTION discern.audit_pick(key bigint, rate double precision, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((hashtextextended(key::text, seed) & 9223372036854775807)::float8 / 9223372036854775807.0) < rate;
$$;
