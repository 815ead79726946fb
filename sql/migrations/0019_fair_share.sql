-- discern schema, version 19: priority without starvation.
--
-- Claims went strictly by priority, so under a backlog of urgent jobs that never empties (more
-- offered than the workers do) lower-priority jobs waited forever (bench/harness's priority
-- phase: 0 of them completed while the backlog lasted). Now every tenth job a worker claims is
-- the oldest waiting one, whatever its priority (the worker's FairShare; QueueSQL.claim's $6).
-- This index finds it without reading the backlog.
CREATE INDEX jobs_claimable_oldest ON discern.jobs (backend, run_at, id) WHERE state = 'available';
