/// The queue's statements, in one place. Every value travels as a `$n` parameter.
enum QueueSQL {
    /// Picks claimable jobs without waiting on rows other workers hold, then leases them. Each
    /// of the worker's backends is read from its own part of the claimable index (backend
    /// first, migration 0012), so other backends' backlogs cost nothing; the best `$2` of all
    /// are leased (rows locked and not chosen are free again when the statement ends).
    static let claim = """
        WITH picked AS (
            SELECT c.id FROM (SELECT DISTINCT unnest($4::text[]) AS backend) AS b
            CROSS JOIN LATERAL (
                SELECT j.id, j.priority, j.run_at FROM discern.jobs j
                WHERE j.state = 'available' AND j.backend = b.backend AND j.run_at <= now()
                ORDER BY j.priority, j.run_at, j.id
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            ) c
            ORDER BY c.priority, c.run_at, c.id
            LIMIT $2
        )
        UPDATE discern.jobs AS j
        SET state = 'running', attempts = j.attempts + 1, lease_owner = $1,
            lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
        FROM picked WHERE j.id = picked.id
        RETURNING j.id, j.batch_id, j.backend, j.action, j.image_path, j.params::text AS params,
                  j.attempts, j.max_attempts
        """

    /// Marks jobs succeeded and writes their results and the results' entities in one
    /// statement, so all happen or none does; one call completes one job or a whole batch.
    /// Guarded by state and lease owner: a job rescued from us writes nothing. $2... are the
    /// results' columns as arrays (`ResultColumns`), then the entities' (`EntityColumns`).
    ///
    /// Why it is written this way (each measured with bench/queue): typed arrays in binary
    /// format expanded with `unnest`, not a JSON document, which the server parsed twice; the
    /// jobs are found by id through the primary key, not among every running job of every
    /// worker through the lease index (`COLLATE "C"` compares exactly as before, but stops the
    /// planner from proving the lease index's `state = 'running'` and choosing it: estimated
    /// from an idle queue it looks empty, and under load it holds every worker's jobs).
    static let complete = """
        WITH input AS (
            SELECT * FROM \(ResultColumns.all.unnest(firstParameter: 2, alias: "r"))
        ), done AS (
            UPDATE discern.jobs AS j
            SET state = 'succeeded', finished_at = now(), updated_at = now(),
                lease_owner = NULL, lease_expires_at = NULL, error_kind = NULL, last_error = NULL
            WHERE j.id = ANY($2::bigint[]) AND j.state = 'running' COLLATE "C" AND j.lease_owner = $1
            RETURNING j.id, j.batch_id, j.image_path, j.backend, j.action, j.unique_key
        ), stored AS (
            INSERT INTO discern.results (
                job_id, batch_id, image_path, backend, action, unique_key,
                category, subcategory, operator, fleet_id, license_plate, confidence,
                text_identifiers, description, outcome, subject_id, details, api_calls, raw_response,
                original_bytes, original_width, original_height, original_format,
                sent_bytes, sent_width, sent_height, sent_format,
                jpeg_quality, encode_count, passed_through, prepare_ms, analyze_ms)
            SELECT done.id, done.batch_id, done.image_path, done.backend, done.action, done.unique_key,
                   i.category, i.subcategory, i.operator, i.fleet_id, i.license_plate, i.confidence,
                   i.text_identifiers::text[], i.description, i.outcome, i.subject_id,
                   i.details, i.api_calls, i.raw_response,
                   i.original_bytes, i.original_width, i.original_height, i.original_format,
                   i.sent_bytes, i.sent_width, i.sent_height, i.sent_format,
                   i.jpeg_quality, i.encode_count, i.passed_through, i.prepare_ms, i.analyze_ms
            FROM done JOIN input AS i ON i.job_id = done.id
            ON CONFLICT (job_id) DO NOTHING
            RETURNING id, job_id
        ), stored_entities AS (
            INSERT INTO discern.entities (
                result_id, position, is_primary, type, category, subtype, operator, fleet_id, license_plate,
                license_plate_jurisdiction, container_id, tail_id, other_ids, identifiers, confidence, properties)
            SELECT stored.id, e.position, e.is_primary, e.type, e.category, e.subtype, e.operator, e.fleet_id,
                   e.license_plate, e.license_plate_jurisdiction, e.container_id, e.tail_id, e.other_ids::text[],
                   e.identifiers::text[], e.confidence, e.properties
            FROM stored JOIN \(EntityColumns.all.unnest(firstParameter: 2 + ResultColumns.all.count, alias: "e"))
                 ON e.job_id = stored.job_id
        )
        SELECT job_id FROM stored
        """

    /// Schedules a retry, or ends the job dead, and appends the attempt to its history. An
    /// attempt that did not count ($7 false: the service could not start it, through no fault of
    /// the job) is given back, so it never uses up the job's attempts.
    static let fail = """
        UPDATE discern.jobs AS j
        SET state = CASE WHEN $3::boolean AND j.attempts - x.refund < j.max_attempts THEN 'available' ELSE 'dead' END,
            attempts = j.attempts - x.refund,
            run_at = CASE WHEN $3::boolean AND j.attempts - x.refund < j.max_attempts
                          THEN now() + make_interval(secs => $4::double precision) ELSE j.run_at END,
            finished_at = CASE WHEN $3::boolean AND j.attempts - x.refund < j.max_attempts THEN NULL ELSE now() END,
            error_kind = $5, last_error = $6, lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
            error_history = j.error_history || jsonb_build_array(jsonb_build_object(
                'attempt', j.attempts, 'at', now(), 'kind', $5::text, 'error', $6::text, 'counted', $7::boolean))
        FROM (SELECT CASE WHEN $7::boolean THEN 0 ELSE 1 END AS refund) AS x
        WHERE j.id = $1 AND j.state = 'running' AND j.lease_owner = $2
        RETURNING j.state
        """

    /// Hands jobs back untouched (shutdown after the grace period): the attempt is not counted.
    static let release = """
        UPDATE discern.jobs
        SET state = 'available', attempts = greatest(attempts - 1, 0), run_at = now(),
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ANY($1::bigint[]) AND state = 'running' AND lease_owner = $2
        RETURNING id
        """

    static let heartbeat = """
        UPDATE discern.jobs
        SET lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
        WHERE id = ANY($1::bigint[]) AND state = 'running' AND lease_owner = $2
        RETURNING id
        """

    /// Returns to the queue (or to `dead` when no attempt is left) the jobs whose lease expired,
    /// and at once those held by a worker that stopped heartbeating (the registry, migration
    /// 0007): a SIGKILLed worker's jobs run again within three heartbeats. SKIP LOCKED lets
    /// many rescuers run at once without waiting on each other.
    static let rescue = """
        UPDATE discern.jobs
        SET state = CASE WHEN attempts < max_attempts THEN 'available' ELSE 'dead' END,
            finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END,
            error_kind = 'lease_expired',
            last_error = 'the worker holding this job stopped (it crashed, hung or lost its database connection); the job was handed back',
            error_history = error_history || jsonb_build_array(jsonb_build_object(
                'attempt', attempts, 'at', now(), 'kind', 'lease_expired', 'error', 'worker stopped: ' || lease_owner)),
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id IN (
            SELECT id FROM discern.jobs
            WHERE state = 'running'
              AND (lease_expires_at < now()
                   OR lease_owner IN (SELECT w.id FROM discern.workers w
                                      WHERE w.last_heartbeat_at < now() - make_interval(secs => 3 * w.heartbeat_seconds)))
            FOR UPDATE SKIP LOCKED)
        RETURNING id
        """

    /// Bulk enqueue goes through the same SQL function operations use.
    /// Moves the files COPY put in `discern_enqueue` into the queue, skipping keys already
    /// taken by a job (the unique index) or by a result. One statement: one wake-up.
    static let enqueueStaged = """
        INSERT INTO discern.jobs (batch_id, backend, action, image_path, priority, unique_key, params)
        SELECT $1::bigint, $2, $3, s.image_path, $4::smallint, s.unique_key, $5::jsonb
        FROM discern_enqueue s
        WHERE s.unique_key IS NULL
           OR NOT EXISTS (SELECT 1 FROM discern.results r WHERE r.unique_key = s.unique_key)
        ON CONFLICT DO NOTHING
        """

    /// Jobs that may still produce work: claimable now, retrying later, or running somewhere.
    static let pendingWork = """
        SELECT count(*) FILTER (WHERE state = 'available' AND run_at <= now()) AS ready,
               count(*) FILTER (WHERE state = 'available' AND run_at > now() AND (attempts > 0 OR error_kind IS NOT NULL)) AS retrying,
               count(*) FILTER (WHERE state = 'running') AS running
        FROM discern.jobs
        WHERE state IN ('available', 'running') AND backend = ANY($1::text[])
        """

}
