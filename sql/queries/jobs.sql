-- discern.jobs, as workers claim, renew, finish, hand back and rescue them (JobQueue.JobQueue).

-- name: claim
-- $1 worker: text
-- $2 wanted: integer
-- $3 leaseSeconds: float8
-- $4 services: text[]
-- $5 holdingNothing: boolean
-- $6 oldestFirst: integer
-- returns: id bigint, batch_id bigint?, service text, action text, image_path text, params text, attempts integer, max_attempts integer, alone boolean, probe boolean
-- Picks claimable jobs without waiting on rows other workers hold, then leases them:
-- `discern.claim` (sql/functions/claim.sql, which says what is picked and why it is a function:
-- its plans are made once per session). `$5`: the worker holds nothing, so it may take a job
-- that must run alone; `$6`: how many to take oldest-first (`FairShare`).
SELECT id, batch_id, backend AS service, action, image_path, params, attempts, max_attempts, alone, probe
FROM discern.claim($1, $2, $3, $4::text[], $5, $6);

-- name: complete
-- $1 worker: text
-- $2 jobId: bigint[]
-- $3 category: text[]
-- $4 subcategory: text[]
-- $5 operatorName: text[]
-- $6 fleetId: text[]
-- $7 licensePlate: text[]
-- $8 confidence: float8[]
-- $9 textIdentifiers: text[]
-- $10 description: text[]
-- $11 outcome: text[]
-- $12 subjectId: text[]
-- $13 details: jsonb[]
-- $14 apiCalls: smallint[]
-- $15 rawResponse: jsonb[]
-- $16 originalBytes: bigint[]
-- $17 originalWidth: integer[]
-- $18 originalHeight: integer[]
-- $19 originalFormat: text[]
-- $20 sentBytes: bigint[]
-- $21 sentWidth: integer[]
-- $22 sentHeight: integer[]
-- $23 sentFormat: text[]
-- $24 jpegQuality: smallint[]
-- $25 encodeCount: smallint[]
-- $26 passedThrough: boolean[]
-- $27 prepareMs: float8[]
-- $28 analyzeMs: float8[]
-- $29 serviceHost: text[]
-- $30 model: text[]
-- $31 modelVersion: text[]
-- $32 discernVersion: text[]
-- $33 byteBudget: bigint[]
-- $34 provenance: jsonb[]
-- $35 entityJobId: bigint[]
-- $36 entityPosition: smallint[]
-- $37 entityIsPrimary: boolean[]
-- $38 entityType: text[]
-- $39 entityCategory: text[]
-- $40 entitySubtype: text[]
-- $41 entityOperator: text[]
-- $42 entityFleetId: text[]
-- $43 entityLicensePlate: text[]
-- $44 entityLicensePlateJurisdiction: text[]
-- $45 entityContainerId: text[]
-- $46 entityTailId: text[]
-- $47 entityOtherIds: text[]
-- $48 entityIdentifiers: text[]
-- $49 entityConfidence: float8[]
-- $50 entityProperties: jsonb[]
-- returns: job_id bigint
-- Marks jobs succeeded and writes their results and the results' entities in one
-- statement, so all happen or none does; one call completes one job or a whole batch.
-- Guarded by state and lease owner: a job rescued from us writes nothing. `$2`...`$34` are
-- the results' columns, one array each (`$2` the job of each), `$35`...`$50` their entities'
-- (`$35` the job each belongs to); `CompletionBatch` fills them from the jobs' results.
--
-- Why it is written this way (each measured with bench/queue): typed arrays in binary
-- format expanded with `unnest`, not a JSON document, which the server parsed twice; the
-- jobs are found by id through the primary key, not among every running job of every
-- worker through the lease index (`COLLATE "C"` compares exactly as before, but stops the
-- planner from proving the lease index's `state = 'running'` and choosing it: estimated
-- from an idle queue it looks empty, and under load it holds every worker's jobs). The
-- identifier lists travel as text (an array literal per row: rows' lists differ in length,
-- which a two-dimensional array cannot hold) and are cast back here.
WITH input AS (
    SELECT * FROM unnest(
        $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[],
        $9::text[], $10::text[], $11::text[], $12::text[], $13::jsonb[], $14::smallint[],
        $15::jsonb[], $16::bigint[], $17::integer[], $18::integer[], $19::text[], $20::bigint[],
        $21::integer[], $22::integer[], $23::text[], $24::smallint[], $25::smallint[],
        $26::boolean[], $27::float8[], $28::float8[], $29::text[], $30::text[], $31::text[],
        $32::text[], $33::bigint[], $34::jsonb[]
    ) AS r(
        job_id, category, subcategory, operator, fleet_id, license_plate, confidence,
        text_identifiers, description, outcome, subject_id, details, api_calls, raw_response,
        original_bytes, original_width, original_height, original_format, sent_bytes, sent_width,
        sent_height, sent_format, jpeg_quality, encode_count, passed_through, prepare_ms,
        analyze_ms, service_host, model, model_version, discern_version, byte_budget, provenance)
), done AS (
    UPDATE discern.jobs AS j
    SET state = 'succeeded', finished_at = now(), updated_at = now(),
        lease_owner = NULL, lease_expires_at = NULL, error_kind = NULL, last_error = NULL
    WHERE j.id = ANY($2::bigint[]) AND j.state = 'running' COLLATE "C" AND j.lease_owner = $1
    RETURNING j.id, j.batch_id, j.image_path, j.backend, j.action, j.unique_key
), stored AS (
    INSERT INTO discern.results (job_id, batch_id, image_path, backend, action, unique_key,
        category, subcategory, operator, fleet_id, license_plate, confidence, text_identifiers,
        description, outcome, subject_id, details, api_calls, raw_response, original_bytes,
        original_width, original_height, original_format, sent_bytes, sent_width, sent_height,
        sent_format, jpeg_quality, encode_count, passed_through, prepare_ms, analyze_ms,
        service_host, model, model_version, discern_version, byte_budget, provenance, audit)
    SELECT done.id, done.batch_id, done.image_path, done.backend, done.action, done.unique_key,
           i.category, i.subcategory, i.operator, i.fleet_id, i.license_plate, i.confidence,
           i.text_identifiers::text[], i.description, i.outcome, i.subject_id, i.details,
           i.api_calls, i.raw_response, i.original_bytes, i.original_width, i.original_height,
           i.original_format, i.sent_bytes, i.sent_width, i.sent_height, i.sent_format,
           i.jpeg_quality, i.encode_count, i.passed_through, i.prepare_ms, i.analyze_ms,
           i.service_host, i.model, i.model_version, i.discern_version, i.byte_budget, i.provenance,
           -- The audit pick, made here rather than by the row trigger:
           -- an inlined hash instead of a function call per result. With only
           -- the '*' setting (the default) its rate and seed are read once per statement.
           CASE WHEN (SELECT count(*) FROM discern.audit_settings WHERE backend <> '*') = 0
                THEN discern.audit_pick(done.id, coalesce((SELECT rate FROM discern.audit_settings WHERE backend = '*'), 0),
                                        coalesce((SELECT seed FROM discern.audit_settings WHERE backend = '*'), 0))
                ELSE coalesce((SELECT discern.audit_pick(done.id, a.rate, a.seed) FROM discern.audit_settings a
                               WHERE a.backend IN (done.backend, '*') ORDER BY a.backend = '*' LIMIT 1), false) END
    FROM done JOIN input AS i ON i.job_id = done.id
    ON CONFLICT (job_id) DO NOTHING
    RETURNING id, job_id
), stored_entities AS (
    INSERT INTO discern.entities (result_id,
        position, is_primary, type, category, subtype, operator, fleet_id, license_plate,
        license_plate_jurisdiction, container_id, tail_id, other_ids, identifiers, confidence,
        properties)
    SELECT stored.id,
           e.position, e.is_primary, e.type, e.category, e.subtype, e.operator, e.fleet_id,
           e.license_plate, e.license_plate_jurisdiction, e.container_id, e.tail_id,
           e.other_ids::text[], e.identifiers::text[], e.confidence, e.properties
    FROM stored JOIN unnest(
        $35::bigint[], $36::smallint[], $37::boolean[], $38::text[], $39::text[], $40::text[],
        $41::text[], $42::text[], $43::text[], $44::text[], $45::text[], $46::text[], $47::text[],
        $48::text[], $49::float8[], $50::jsonb[]
    ) AS e(
        job_id, position, is_primary, type, category, subtype, operator, fleet_id, license_plate,
        license_plate_jurisdiction, container_id, tail_id, other_ids, identifiers, confidence,
        properties)
         ON e.job_id = stored.job_id
)
SELECT job_id FROM stored;

-- name: failureFacts
-- $1 job: bigint
-- $2 worker: text
-- returns: attempts integer, max_attempts integer, hand_backs integer, service text, failing_since timestamptz
-- What `FailureDecision` reads of a job this worker still holds (no row when it does not): its
-- counts, and since when its service would have to have completed another job for a failure
-- to be this photo's (its last failure, else its creation).
SELECT j.attempts, j.max_attempts, j.given_back AS hand_backs, j.backend AS service,
       coalesce((j.error_history->-1->>'at')::timestamptz, j.created_at) AS failing_since
FROM discern.jobs j
WHERE j.id = $1 AND j.state = 'running' AND j.lease_owner = $2;

-- name: serviceCompletedSince
-- $1 since: timestamptz
-- $2 service: text
-- $3 job: bigint
-- returns: completed boolean
-- Whether the service ($2) completed a job other than $3 after $1: evidence for
-- `FailureDecision` that the service works and the photo is what fails.
SELECT EXISTS (SELECT 1 FROM discern.jobs s
               WHERE s.finished_at > $1::timestamptz AND s.state = 'succeeded' AND s.backend = $2 AND s.id <> $3) AS completed;

-- name: recordFailure
-- $1 job: bigint
-- $2 worker: text
-- $3 attemptsRead: integer
-- $4 handBacksRead: integer
-- $5 attempts: integer
-- $6 handBacks: integer
-- $7 retryAfterSeconds: float8?
-- $8 kind: text
-- $9 message: text
-- $10 note: text
-- $11 spent: boolean
-- returns: state text
-- Writes what `FailureDecision` decided for a failed attempt, and appends the attempt to the
-- job's history: available again in $7 seconds, or dead when $7 is null. Only while the row is
-- as it was decided on ($3, $4: the attempts and hand-backs read) and still this worker's:
-- otherwise nothing is written (the lease was lost meanwhile) and no row comes back.
UPDATE discern.jobs AS j
SET state = CASE WHEN $7::double precision IS NULL THEN 'dead' ELSE 'available' END,
    attempts = $5::integer,
    given_back = $6::integer,
    run_at = CASE WHEN $7::double precision IS NULL THEN j.run_at ELSE now() + make_interval(secs => $7::double precision) END,
    finished_at = CASE WHEN $7::double precision IS NULL THEN now() ELSE NULL END,
    error_kind = $8::text,
    last_error = $9::text || $10::text,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
    error_history = discern.history_with(j.error_history, jsonb_build_object(
        'attempt', j.attempts, 'at', now(), 'kind', $8::text, 'error', $9::text, 'counted', $11::boolean))
WHERE j.id = $1 AND j.state = 'running' AND j.lease_owner = $2 AND j.attempts = $3 AND j.given_back = $4
RETURNING j.state;

-- name: failOrphans
-- $1 worker: text
-- $2 holding: bigint[]
-- $3 kind: text
-- returns: id bigint
-- A worker's own running jobs it no longer holds (`$2`: the ones it does), their leases
-- expired. The attempt counts (it ran, and may have paid for a call), so a job whose outcome
-- can never be written ends dead after its attempts rather than run for ever; its history
-- says so. A row locked meanwhile (its outcome being written) is not waited for.
UPDATE discern.jobs AS j
SET state = CASE WHEN j.attempts < j.max_attempts THEN 'available' ELSE 'dead' END,
    run_at = CASE WHEN j.attempts < j.max_attempts THEN now() ELSE j.run_at END,
    finished_at = CASE WHEN j.attempts < j.max_attempts THEN NULL ELSE now() END,
    error_kind = $3::text, last_error = m.message,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
    error_history = discern.history_with(j.error_history, jsonb_build_object(
        'attempt', j.attempts, 'at', now(), 'kind', $3::text, 'error', m.message, 'counted', true))
FROM (SELECT id FROM discern.jobs
      WHERE state = 'running' AND lease_owner = $1 AND lease_expires_at < now() AND NOT (id = ANY($2::bigint[]))
      FOR UPDATE SKIP LOCKED) AS o,
     (SELECT 'the worker ran this attempt but could not record what came of it (its log says why: a permission, '
             || 'a schema not migrated); the attempt counts, and once none is left the job is dead: fix that, then discern retry' AS message) AS m
WHERE j.id = o.id AND j.state = 'running' AND j.lease_owner = $1
RETURNING j.id;

-- name: traceparents
-- $1 jobs: bigint[]
-- returns: id bigint, traceparent text
SELECT id, traceparent FROM discern.jobs WHERE id = ANY($1::bigint[]) AND traceparent IS NOT NULL;

-- name: handBack
-- $1 jobs: bigint[]
-- $2 worker: text
-- returns: id bigint
-- Hands jobs back untouched (shutdown after the grace period): the attempt is not counted.
UPDATE discern.jobs
SET state = 'available', attempts = greatest(attempts - 1, 0), run_at = now(),
    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
WHERE id = ANY($1::bigint[]) AND state = 'running' AND lease_owner = $2
RETURNING id;

-- name: handBackLater
-- $1 job: bigint
-- $2 worker: text
-- $3 afterSeconds: float8
-- $4 kind: text?
-- $5 message: text?
-- $6 probe: boolean
-- returns: id bigint
-- Hands a job back because its service is unavailable (the breaker): not the job's fault,
-- so the attempt is not counted and no given-back allowance is spent (however long the
-- outage, the job keeps all its attempts); its history says why it waited, and whether it
-- was the probe ($6: a probe is chosen among jobs that failed as one least often). `$3`
-- seconds before it may be claimed again.
UPDATE discern.jobs AS j
SET state = 'available', attempts = greatest(j.attempts - 1, 0), run_at = now() + make_interval(secs => $3::double precision),
    lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
    error_history = CASE WHEN $4::text IS NULL THEN j.error_history ELSE discern.history_with(j.error_history, jsonb_build_object(
        'attempt', j.attempts, 'at', now(), 'kind', $4::text, 'error', $5::text, 'counted', false, 'probe', $6::boolean)) END
WHERE j.id = $1 AND j.state = 'running' AND j.lease_owner = $2
RETURNING j.id;

-- name: heartbeat
-- $1 jobs: bigint[]
-- $2 worker: text
-- $3 leaseSeconds: float8
-- returns: id bigint
-- Renews the leases of the worker's jobs and returns those still its own. A job row locked
-- by another statement is not waited for (SKIP LOCKED): the worker's own completion of it
-- may be held up (a slow disk, a lock on results), and a heartbeat waiting behind it would
-- stall everything else on the queue connection, claims included, while the leases of all
-- its other jobs ran out. A locked job still counts as the worker's (read without a lock);
-- its lease is renewed at the next beat.
WITH mine AS (
    SELECT id FROM discern.jobs WHERE id = ANY($1::bigint[]) AND state = 'running' AND lease_owner = $2
), renewed AS (
    UPDATE discern.jobs AS j
    SET lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
    FROM (SELECT id FROM discern.jobs WHERE id IN (SELECT id FROM mine) FOR UPDATE SKIP LOCKED) AS free
    WHERE j.id = free.id AND j.state = 'running' AND j.lease_owner = $2
    RETURNING j.id
)
SELECT id FROM mine;

-- name: rescue
-- $1 rescuer: text?
-- $2 crashedKind: text
-- $3 expiredKind: text
-- returns: rescued integer, awaited integer, awaited_seconds float8?
-- Hands back the jobs of workers that are gone, whatever the rest of the fleet is doing:
-- - `session`: a worker whose session held its lock (`WorkerRegistry.presenceNamespace`)
-- and no longer does, and that missed two heartbeats (a live worker reconnecting its
-- session keeps beating meanwhile). PostgreSQL ends the session with the process, so a
-- SIGKILLed worker's jobs run again within about two beats;
-- - `heartbeat`: a worker that holds no lock (an older release, a transaction pooler) and
-- missed three heartbeats;
-- - `unregistered`: an expired lease whose owner stopped or is not registered at all.
-- A worker whose session holds its lock is alive however late its heartbeat (a process
-- starved of CPU): a lease it did not know it held is its own rescuer's to release
-- (`failOrphans`). A rescuer never takes its own worker for gone (`$1`). After a restart
-- or failover every session is new: a worker not heard from since the server was first seen
-- (`databaseEpoch`) is awaited for `reconnectSeconds`, or three of its heartbeats if longer,
-- before the first two rules judge it. SKIP LOCKED lets many rescuers run at once, and
-- leaves alone a row a statement still holds (its worker's own completion).
--
-- How a crash counts: a job whose worker stopped while preparing its file alone (its own id
-- in `preparing_by`, which only a worker running a suspect writes) spends the attempt and
-- counts a solo crash; the third ends it dead as `worker_crashed`, as does an attempt that
-- was its last. Any other crash gives the attempt back and counts a shared crash, as does
-- one whose worker was last heard from before a restart or failover (the outage's doing).
-- The {{shared_crashes_before_dead}}th shared crash ends the job dead as `worker_crashed` too:
-- from the fourth on, it ran alone, so a file that kills its worker after it is prepared (its
-- upload, the service's answer) ends rather than take down a worker a time for ever.
-- Returns the jobs rescued, and the workers awaited that hold jobs, with the seconds left.
WITH epoch AS (
    SELECT max(first_seen_at) AS since FROM discern.database_epoch
), held AS (
    SELECT objid::bigint AS key FROM pg_locks
    WHERE locktype = 'advisory' AND classid = {{presence_namespace}} AND objsubid = 2 AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
), silent AS (
    SELECT w.id AS owner, 'session' AS why, w.last_heartbeat_at, w.heartbeat_seconds, w.stopped_at FROM discern.workers w
    WHERE w.presence_key IS NOT NULL AND w.id IS DISTINCT FROM $1
      AND w.last_heartbeat_at < now() - make_interval(secs => 2 * w.heartbeat_seconds)
      AND w.presence_key::bigint NOT IN (SELECT key FROM held)
    UNION ALL
    SELECT w.id, 'heartbeat', w.last_heartbeat_at, w.heartbeat_seconds, w.stopped_at FROM discern.workers w
    WHERE w.presence_key IS NULL AND w.id IS DISTINCT FROM $1
      AND w.last_heartbeat_at < now() - make_interval(secs => 3 * w.heartbeat_seconds)
), awaited AS (
    SELECT owner, until FROM (
        SELECT s.owner, s.stopped_at, s.last_heartbeat_at, epoch.since,
               epoch.since + make_interval(secs => greatest({{reconnect_seconds}}, 3 * s.heartbeat_seconds)) AS until
        FROM silent s, epoch
    ) AS w
    WHERE stopped_at IS NULL AND last_heartbeat_at < since AND now() < until
), gone AS (
    SELECT owner, why, last_heartbeat_at >= coalesce((SELECT since FROM epoch), '-infinity') AS heard_since
    FROM silent WHERE owner NOT IN (SELECT owner FROM awaited)
    UNION ALL
    SELECT expired.lease_owner, 'unregistered', false FROM (
        SELECT lease_owner FROM discern.jobs WHERE state = 'running' AND lease_expires_at < now()
          AND lease_owner IS DISTINCT FROM $1 FOR UPDATE SKIP LOCKED
    ) AS expired
    WHERE NOT EXISTS (SELECT 1 FROM discern.workers w WHERE w.id = expired.lease_owner AND w.stopped_at IS NULL)
), stopped AS (
    SELECT DISTINCT ON (owner) owner, why, heard_since FROM gone ORDER BY owner, why
), lost AS (
    SELECT j.id, j.solo_crashes, j.shared_crashes, j.attempts, j.max_attempts, stopped.why, stopped.heard_since,
           stopped.heard_since AND j.preparing_by IS NOT DISTINCT FROM j.lease_owner AS preparing_alone,
           (SELECT count(*) FROM discern.jobs o WHERE o.state = 'running' AND o.lease_owner = j.lease_owner) AS held
    FROM discern.jobs j JOIN stopped ON stopped.owner = j.lease_owner
    WHERE j.state = 'running'
    FOR UPDATE OF j SKIP LOCKED
), judged AS (
    SELECT id, held, why, preparing_alone AS counted,
           preparing_alone AND (solo_crashes + 1 >= {{solo_crashes_before_dead}} OR attempts >= max_attempts) OR too_often AS dies,
           preparing_alone AND solo_crashes + 1 >= {{solo_crashes_before_dead}} OR too_often AS crashes_it,
           too_often
    FROM (SELECT *, NOT preparing_alone AND heard_since AND shared_crashes + 1 >= {{shared_crashes_before_dead}} AS too_often FROM lost) AS l
), rescued AS (
    UPDATE discern.jobs AS j
    SET state = CASE WHEN judged.dies THEN 'dead' ELSE 'available' END,
        finished_at = CASE WHEN judged.dies THEN now() ELSE NULL END,
        attempts = CASE WHEN judged.counted THEN j.attempts ELSE greatest(j.attempts - 1, 0) END,
        shared_crashes = j.shared_crashes + CASE WHEN judged.counted THEN 0 ELSE 1 END,
        solo_crashes = j.solo_crashes + CASE WHEN judged.counted THEN 1 ELSE 0 END,
        error_kind = CASE WHEN judged.crashes_it THEN $2::text ELSE $3::text END,
        last_error = CASE
            WHEN judged.too_often THEN format('the worker stopped (crashed, was killed or ran out of memory) %s times holding this job, '
                'the last %s of them holding it alone after its file was prepared: its upload or the service''s answer likely '
                'crashes discern; inspect it, then discern.retry', j.shared_crashes + j.solo_crashes + 1, j.shared_crashes + 1 - {{crashes_before_alone}})
            WHEN judged.crashes_it THEN format('the worker stopped (crashed, was killed or ran out of memory) %s times while preparing this file alone: '
                'the file likely crashes discern; inspect it, then discern.retry', j.solo_crashes + 1)
            WHEN judged.counted THEN 'the worker stopped while preparing this file alone (it crashed, was killed or ran out of memory); the attempt counts'
            ELSE format('the worker holding this job and %s other(s) stopped (it crashed, hung or lost its database connection), '
                'not while preparing this file alone; the job was handed back, the attempt not counted', judged.held - 1)
        END,
        error_history = discern.history_with(j.error_history, jsonb_build_object(
            'attempt', j.attempts, 'at', now(), 'kind', CASE WHEN judged.crashes_it THEN $2::text ELSE $3::text END,
            'error', format(CASE judged.why
                WHEN 'session' THEN 'worker %s is gone (its database session ended: it crashed, was killed or lost its connection) holding %s job(s)'
                WHEN 'heartbeat' THEN 'worker %s missed three heartbeats holding %s job(s)'
                ELSE 'worker %s stopped or is no longer registered, and its lease expired, holding %s job(s)' END,
                j.lease_owner, judged.held), 'counted', judged.counted)),
        preparing_by = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
    FROM judged WHERE j.id = judged.id
    RETURNING j.id
)
SELECT (SELECT count(*) FROM rescued)::integer AS rescued, count(*)::integer AS awaited,
       extract(epoch FROM max(a.until) - now())::double precision AS awaited_seconds
FROM awaited a
WHERE EXISTS (SELECT 1 FROM discern.jobs j WHERE j.state = 'running' AND j.lease_owner = a.owner);

-- name: markPreparing
-- $1 job: bigint
-- $2 worker: text
-- Marks a suspect's file as being prepared by its worker, alone (`rescue` counts a crash
-- then against the file), and clears the mark once it is prepared. Guarded by the lease.
UPDATE discern.jobs SET preparing_by = $2 WHERE id = $1 AND state = 'running' AND lease_owner = $2;

-- name: clearPreparing
-- $1 job: bigint
-- $2 worker: text
UPDATE discern.jobs SET preparing_by = NULL WHERE id = $1 AND lease_owner = $2 AND preparing_by = $2;

-- name: databaseEpoch
-- returns: same boolean?
-- Whether the server rescuers last recorded is still the one answering.
SELECT server_started_at = pg_postmaster_start_time()
           AND stats_reset_at IS NOT DISTINCT FROM pg_stat_get_bgwriter_stat_reset_time() AS same
FROM discern.database_epoch;

-- name: newDatabaseEpoch
-- returns: nothing
-- Records a server not seen before; of rescuers seeing it at once, the first one's time
-- stands. The very first record has nothing to compare with: the server's own start (or
-- crash recovery) stands for when it was first seen.
INSERT INTO discern.database_epoch AS e (server_started_at, stats_reset_at, first_seen_at)
VALUES (pg_postmaster_start_time(), pg_stat_get_bgwriter_stat_reset_time(),
        greatest(pg_postmaster_start_time(), pg_stat_get_bgwriter_stat_reset_time()))
ON CONFLICT (only_row) DO UPDATE SET server_started_at = excluded.server_started_at,
    stats_reset_at = excluded.stats_reset_at, first_seen_at = now()
WHERE (e.server_started_at, e.stats_reset_at) IS DISTINCT FROM (excluded.server_started_at, excluded.stats_reset_at);

-- name: enqueueStaged
-- $1 batch: bigint?
-- $2 service: text
-- $3 action: text
-- $4 priority: integer
-- $5 params: jsonb
-- returns: nothing
-- Moves the files COPY put in `discern_enqueue` into the queue, skipping keys already
-- taken by a job (the unique index) or by a result: the rule `discern.enqueue_many` keeps
-- too. One statement: one wake-up.
-- A near-duplicate waits behind every other job (the largest priority).
INSERT INTO discern.jobs (batch_id, backend, action, image_path, priority, unique_key, params, perceptual_hash, near_duplicate_of,
                          traceparent)
SELECT $1::bigint, $2, $3, s.image_path, CASE WHEN s.near_duplicate_of IS NULL THEN $4::smallint ELSE 32767 END,
       s.unique_key, $5::jsonb, s.perceptual_hash, s.near_duplicate_of, s.traceparent
FROM discern_enqueue s
WHERE s.unique_key IS NULL
   OR NOT EXISTS (SELECT 1 FROM discern.results r WHERE r.unique_key = s.unique_key)
ON CONFLICT DO NOTHING;

-- name: aloneJobWaiting
-- $1 services: text[]
-- $2 waitedSeconds: float8
-- returns: waiting boolean
-- A job that must run alone, claimable for a while already (the rescue that made it one set
-- `updated_at`), read from its own small index.
SELECT EXISTS (
    SELECT 1 FROM discern.jobs
    WHERE state = 'available' AND shared_crashes >= {{crashes_before_alone}} AND backend = ANY($1::text[])
      AND run_at <= now() AND updated_at < now() - make_interval(secs => $2::double precision)
) AS waiting;

-- name: pendingWork
-- $1 services: text[]
-- returns: ready bigint, retrying bigint, running bigint
-- Jobs that may still produce work: claimable now, retrying later, or running somewhere.
SELECT count(*) FILTER (WHERE state = 'available' AND run_at <= now()) AS ready,
       count(*) FILTER (WHERE state = 'available' AND run_at > now() AND (attempts > 0 OR error_kind IS NOT NULL)) AS retrying,
       count(*) FILTER (WHERE state = 'running') AS running
FROM discern.jobs
WHERE state IN ('available', 'running') AND backend = ANY($1::text[]);
