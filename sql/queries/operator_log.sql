-- discern.operator_actions: who did what through discern, written in the transaction of the action itself (JobQueue.OperatorLog).

-- name: record
-- $1 actor: text
-- $2 action: text
-- $3 scope: text
-- $4 jobs: integer
-- $5 jobIds: bigint[]?
-- $6 batch: text?
-- One line of the log: the jobs it names one by one (`$5`, at most {{named_jobs}}; NULL when
-- more), and its batch by name (`$6`).
INSERT INTO discern.operator_actions (actor, action, scope, jobs, job_ids, batch_id)
VALUES ($1, $2, $3, $4, $5, (SELECT id FROM discern.batches WHERE name = $6));
