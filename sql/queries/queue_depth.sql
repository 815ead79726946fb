-- discern.jobs: how many jobs of each service wait and run, as every worker samples them for its own metrics (JobQueue.QueueDepth).

-- name: live
-- returns: service text, state text, jobs bigint
-- Waiting and running jobs only, each counted through its partial index (the state a
-- constant, so waiting jobs are counted from the index's entries alone): what every worker
-- may sample often.
SELECT backend AS service, 'available' AS state, count(*) AS jobs FROM discern.jobs WHERE state = 'available' GROUP BY 1
UNION ALL SELECT backend, 'running', count(*) FROM discern.jobs WHERE state = 'running' GROUP BY 1;
