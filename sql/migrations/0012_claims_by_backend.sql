-- discern schema, version 12: a worker claims its own backends' jobs without reading anyone
-- else's, and the failures page's two lists come from their own small indexes.
--
-- The claim index was (priority, run_at, id) over every waiting job, and the backend was
-- checked on each row. A worker serving only landmark behind a backlog of 285,000 waiting
-- discerner jobs read all of them on every claim (about 100 ms each): bench/results saw 30
-- jobs/s where 1,000 were expected. With the backend first, a claim reads the index at its own
-- backend's oldest job; a worker serving several backends claims from each (QueueSQL.claim).
-- The same index counts waiting jobs per backend (status, dashboards, KEDA).
DROP INDEX discern.jobs_claimable;
CREATE INDEX jobs_claimable ON discern.jobs (backend, priority, run_at, id) WHERE state = 'available';

-- The console's failures page: jobs waiting for a retry after an error (oldest first): few,
-- and found without reading every waiting job.
CREATE INDEX jobs_failing ON discern.jobs (run_at) WHERE state = 'available' AND error_kind IS NOT NULL;

-- The newest dead jobs (the failures page): from the dead jobs' own index instead of sorting
-- every dead job (1.1 s for 395,000).
CREATE INDEX jobs_dead_recent ON discern.jobs (finished_at DESC NULLS LAST) WHERE state = 'dead';

-- One batch's dead jobs (discern report's top errors, the batch summary): without it the
-- planner read every dead job of every batch (0.5 s at 380,000).
CREATE INDEX jobs_dead_batch ON discern.jobs (batch_id) WHERE state = 'dead';
