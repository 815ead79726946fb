-- The probe of an unavailable service failed for the service's reasons: the next probe waits
-- longer, `first_delay` doubled with each failed probe up to `max_delay`, with a little jitter so
-- the fleet's probes do not line up. Only the probe's owner may report it (the probe it started,
-- `job`); a late report of an older probe changes nothing. Returns when the next probe may go,
-- NULL when the breaker was closed meanwhile or the probe was not this one.
CREATE OR REPLACE FUNCTION discern.breaker_probe_failed(backend text, worker text, job bigint, error_kind text, error text,
                                                        first_delay double precision, max_delay double precision)
RETURNS timestamptz
LANGUAGE sql AS $$
    UPDATE discern.service_breakers AS b
    SET probes_failed = b.probes_failed + 1,
        next_probe_at = now() + make_interval(secs => least(greatest(max_delay, 0),
                            greatest(first_delay, 0) * power(2, least(b.probes_failed + 1, 20))) * (0.9 + 0.2 * random())),
        error_kind = left(breaker_probe_failed.error_kind, 100), last_error = left(error, 1000),
        probe_job = NULL, probe_owner = NULL, probe_started_at = NULL
    WHERE b.backend = breaker_probe_failed.backend AND b.probe_job = job AND b.probe_owner = worker
    RETURNING b.next_probe_at;
$$;
