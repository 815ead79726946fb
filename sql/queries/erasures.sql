-- discern.erasure_requests, discern.erasure_steps: erasure on request (JobQueue.Erasures, `discern erase`).

-- name: erase
-- $1 keyKind: text
-- $2 key: text
-- $3 dryRun: boolean
-- $4 actor: text
-- returns: request_id bigint?, part text, n bigint
-- Erases what `$2` names as a `$1` (subject, plate, photo, content), or with `$3` only counts it,
-- recorded as asked by `$4`: discern.erase (sql/functions/erase.sql).
SELECT e.request_id, e.part, e.n FROM discern.erase($1, $2, $3::boolean, $4) e;

-- name: advance
-- returns: finished integer?
-- Moves erasures on: discern.advance_erasures (sql/functions/advance_erasures.sql).
SELECT discern.advance_erasures() AS finished;

-- name: status
-- $1 limit: integer
-- $2 openOnly: boolean
-- returns: doc text?
-- The erasure requests, newest first, `$1` at most (with `$2`, in progress only), each with its
-- steps, as one JSON document (QueueReads.ErasureLog).
SELECT json_build_object('requests', coalesce(json_agg(x ORDER BY x.id DESC), '[]')) AS doc FROM (
  SELECT r.id, r.key_kind, r.key_digest, r.requested_by, r.requested_at, r.removed, r.state, r.finished_at,
         coalesce((SELECT json_agg(json_build_object('step', s.step, 'service', s.backend, 'action', s.action, 'state', s.state,
                                                     'outcome', s.outcome, 'rounds', s.rounds, 'last_error_kind', s.last_error_kind,
                                                     'job_state', j.state, 'job_attempts', j.attempts, 'job_error_kind', j.error_kind,
                                                     'done_at', s.done_at)
                                   ORDER BY s.step)
                   FROM discern.erasure_steps s LEFT JOIN discern.jobs j ON j.id = s.job_id WHERE s.request_id = r.id), '[]') AS steps
  FROM discern.erasure_requests r
  WHERE NOT $2::boolean OR r.state = 'in_progress'
  ORDER BY r.id DESC LIMIT $1) x;
