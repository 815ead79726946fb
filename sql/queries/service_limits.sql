-- discern.rate_limits, discern.service_budgets, discern.operator_actions: what an admin changes from the console, each with its line in the operator log (JobQueue.ServiceLimits).

-- name: setRateLimit
-- $1 key: text
-- $2 perMinute: float8
-- $3 by: text
-- $4 scope: text
-- returns: n bigint
-- Sets the pace of the shared rate limit `$1` to `$2` a minute, recorded as by `$3`; counts 0
-- when there is no such limit.
WITH done AS (
    -- A schedule a slower pace pushed far ahead is brought back to the new one's.
    UPDATE discern.rate_limits SET per_minute = $2,
           next_at = least(next_at, clock_timestamp() + make_interval(secs => 60 / $2::float8))
    WHERE key = $1 RETURNING key),
logged AS (INSERT INTO discern.operator_actions (actor, action, scope)
           SELECT $3, 'rate_limit', left('rate limit ' || key || ': ' || $4, 1000) FROM done)
SELECT count(*) AS n FROM done;

-- name: setSpendCap
-- $1 service: text
-- $2 calls: bigint?
-- $3 period: text
-- $4 by: text
-- $5 scope: text
-- returns: n bigint
-- Sets a service's spend cap in calls a period, or removes it (`$2` NULL), recorded as by `$4`.
WITH done AS (
    INSERT INTO discern.service_budgets (backend, cap_calls, cap_period, updated_by) VALUES ($1, $2, $3, $4)
    ON CONFLICT (backend) DO UPDATE SET cap_calls = EXCLUDED.cap_calls, cap_period = EXCLUDED.cap_period,
                                        updated_at = now(), updated_by = EXCLUDED.updated_by
    RETURNING backend),
logged AS (INSERT INTO discern.operator_actions (actor, action, scope) SELECT $4, 'spend_cap', left($5, 1000) FROM done)
SELECT count(*) AS n FROM done;
