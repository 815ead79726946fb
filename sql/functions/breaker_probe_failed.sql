-- The probe of an unavailable service failed for the service's reasons: the outage is real, and
-- the next probe waits `max_delay` (the first came `first_delay` after the trip, for a blip), with
-- ±10 % jitter so the fleet's probes do not line up: at most two probes in any minute of an outage
-- at the defaults (35 s), and work again within about 40 s of the service's return. Only the probe's owner may report it (the probe it started,
-- `job`); a late report of an older probe changes nothing and returns no row. Returns the seconds
-- until the next probe may go, and how often the probe's job had failed as one before (its
-- error history says so: the worker's give-back marks each with "probe": true).
CREATE OR REPLACE FUNCTION discern.breaker_probe_failed(backend text, worker text, job bigint, error_kind text, error text,
                                                        first_delay double precision, max_delay double precision)
RETURNS TABLE (wait double precision, failed_before integer)
LANGUAGE sql AS $$
    WITH reported AS (
        UPDATE discern.service_breakers AS b
        SET probes_failed = b.probes_failed + 1,
            next_probe_at = now() + make_interval(secs => greatest(max_delay, first_delay, 0) * (0.9 + 0.2 * random())),
            error_kind = left(breaker_probe_failed.error_kind, 100), last_error = left(error, 1000),
            probe_job = NULL, probe_owner = NULL, probe_started_at = NULL
        WHERE b.backend = breaker_probe_failed.backend AND b.probe_job = job AND b.probe_owner = worker
        RETURNING b.next_probe_at
    )
    SELECT extract(epoch FROM r.next_probe_at - now())::float8,
           (SELECT count(*)::integer FROM discern.jobs j, jsonb_array_elements(j.error_history) e
            WHERE j.id = job AND e->>'probe' = 'true')
    FROM reported r;
$$;
