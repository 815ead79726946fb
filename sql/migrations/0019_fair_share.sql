-- discern schema, version 19: priority without starvation.
--
-- Claims went strictly by priority, so under a backlog of urgent jobs that never empties (more
-- offered than the workers do) lower-priority jobs waited forever (bench/harness's priority
-- phase: 0 of them completed while the backlog lasted). Now one claim in ten a worker makes is
-- served oldest-first, whatever the priorities (the worker's FairShare; QueueSQL.claim's $6).
-- This index finds the oldest jobs without reading the backlog.
CREATE INDEX jobs_claimable_oldest ON discern.jobs (backend, run_at, id) WHERE state = 'available';
