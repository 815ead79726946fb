-- discern.corrections, discern.results, discern.operator_actions: a person's verdicts on results, written by the console (JobQueue.Reviews).

-- name: record
-- $1 result: bigint
-- $2 confirmed: boolean
-- $3 verdict: text
-- $4 operatorName: text?
-- $5 fleetId: text?
-- $6 licensePlate: text?
-- $7 category: text?
-- $8 by: text
-- returns: n bigint
-- Records a verdict on the result `$1`, with who (`$8`) and its line in the operator log, in
-- one statement; counts 0 when the result does not exist.
WITH added AS (
    INSERT INTO discern.corrections (result_id, confirmed, verdict, operator, fleet_id, license_plate, category, corrected_by)
    SELECT id, $2, $3, $4, $5, $6, $7, $8 FROM discern.results WHERE id = $1
    RETURNING result_id),
logged AS (
    INSERT INTO discern.operator_actions (actor, action, scope, jobs, job_ids, batch_id)
    SELECT $8, 'review', 'result ' || r.id || ': ' || $3, 1, CASE WHEN r.job_id IS NOT NULL THEN ARRAY[r.job_id] END, r.batch_id
    FROM added a JOIN discern.results r ON r.id = a.result_id)
SELECT count(*) AS n FROM added;
