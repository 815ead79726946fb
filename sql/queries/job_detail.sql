-- discern.jobs, discern.batches, discern.results, discern.corrections, discern.entities, discern.operator_actions: one job, or one result whose job was pruned, as one JSON document (QueueReads.JobDetail).

-- fragment: job_detail_head
-- The job `$1`, or the result `$2` (a result outlives its pruned job), up to the result's raw
-- answer: the two statements below differ in that column alone.
WITH j AS (
    SELECT j.id, j.state, j.backend, j.action, b.name AS batch, j.batch_id, j.image_path, j.priority, j.attempts, j.max_attempts, j.error_kind,
           j.last_error, j.error_history, j.created_at, j.run_at, j.updated_at, j.finished_at, j.lease_owner, j.lease_expires_at,
           nullif(split_part(j.traceparent, '-', 2), '') AS trace_id
    FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
    WHERE j.id = coalesce($1, (SELECT job_id FROM discern.results WHERE id = $2))),
r AS (
    SELECT r.id, r.image_path, r.backend, r.outcome, r.subject_id, r.category, r.subcategory, r.operator, r.fleet_id, r.license_plate,
           r.confidence, r.description, r.original_bytes, r.original_width, r.original_height, r.original_format,
           r.sent_bytes, r.sent_width, r.sent_height, r.sent_format, r.jpeg_quality, r.encode_count, r.passed_through,
           r.prepare_ms, r.analyze_ms, r.created_at,

-- fragment: job_detail_tail
-- From the result's provenance on: its latest review, the result's entities and the operator
-- actions that named the job or its batch; the document's last field follows.
           r.service_host, r.model, r.model_version, r.discern_version, r.byte_budget,
           (SELECT to_json(c) FROM (
               SELECT confirmed, operator, fleet_id, license_plate, corrected_by, corrected_at FROM discern.corrections
               WHERE result_id = r.id ORDER BY id DESC LIMIT 1) c) AS review
    FROM discern.results r
    WHERE r.id = coalesce($2, (SELECT id FROM discern.results WHERE job_id = $1)))
SELECT CASE WHEN EXISTS (SELECT 1 FROM j) OR EXISTS (SELECT 1 FROM r) THEN json_build_object(
    'job', (SELECT to_json(j) FROM j),
    'result', (SELECT to_json(r) FROM r),
    'entities', (SELECT coalesce(json_agg(e ORDER BY e.position), '[]') FROM (
        SELECT position, is_primary, type, operator, fleet_id, license_plate, container_id, tail_id, identifiers, confidence
        FROM discern.entities WHERE result_id = (SELECT id FROM r)) e),
    'actions', (SELECT coalesce(json_agg(a ORDER BY a.at DESC, a.id DESC), '[]') FROM (
        SELECT o.id, o.at, o.actor, o.action, o.scope, o.jobs FROM discern.operator_actions o
        WHERE o.job_ids @> ARRAY[(SELECT id FROM j)]
           OR (o.job_ids IS NULL AND o.batch_id = (SELECT batch_id FROM j))
        ORDER BY o.at DESC, o.id DESC LIMIT 50) a),

-- name: document
-- $1 job: bigint?
-- $2 result: bigint?
-- returns: doc text?
-- The job `$1`, or the result `$2`, with its result, entities and operator actions, for a
-- role that may not read raw answers (the column is not named at all, so its privilege is
-- never checked). NULL when there is neither job nor result.
{{job_detail_head}} NULL::jsonb AS raw_response, {{job_detail_tail}}
    'raw_answer_visible', false) END AS doc;

-- name: documentWithRawAnswer
-- $1 job: bigint?
-- $2 result: bigint?
-- returns: doc text?
-- As `document`, with the service's raw answer.
{{job_detail_head}} r.raw_response AS raw_response, {{job_detail_tail}}
    'raw_answer_visible', true) END AS doc;
