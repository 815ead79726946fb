-- discern.pending_job_events, discern.pending_result_events and the roll-up tables: moving what has committed into the per-minute, per-hour and per-batch roll-ups (JobQueue.Rollups).

-- name: rollUp
-- returns: moved integer?
-- Moves the pending events into the roll-ups (sql/functions/roll_up.sql); returns how many,
-- 0 when another session is rolling up at this moment.
SELECT discern.roll_up() AS moved;
