-- discern.rate_limits, discern.service_budgets: the shared rate-limit schedules and spend caps, through their functions (JobQueue.RateLimits).

-- name: lease
-- $1 key: text
-- $2 wanted: integer
-- returns: first_wait float8?, spacing float8?, granted integer
-- Takes up to `$2` consecutive slots of the limit `$1` (sql/functions/take_rate_tokens.sql):
-- no row when no limit is set for it.
SELECT * FROM discern.take_rate_tokens($1, $2);

-- name: liftSpentCaps
-- returns: n integer?
-- Lets services whose spent cap has room again be claimed (sql/functions/lift_spent_caps.sql).
SELECT discern.lift_spent_caps() AS n;

-- name: returnSlot
-- $1 key: text
-- A slot whose call never left: off the service's billed calls of the day.
SELECT discern.return_rate_token($1);

-- name: rateLimited
-- $1 key: text
-- $2 retryAfterSeconds: float8?
-- The service answered 429: its schedule is pushed back (by `$2` seconds when it said).
SELECT discern.rate_limited($1, $2);
