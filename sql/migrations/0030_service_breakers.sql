-- discern schema, version 30: a breaker per service, shared by every worker (docs/operations.md,
-- "When a service is down"). A row exists while the service is unavailable: workers claim none
-- of its jobs (discern.claim_jobs) but one probe at a time, whose owner and job are recorded
-- here; the first probe that the service answers deletes the row (discern.close_breaker), as
-- `discern resume` does. Trips and closes are in the operator log.
CREATE TABLE discern.service_breakers (
    backend text PRIMARY KEY CHECK (length(backend) BETWEEN 1 AND 100),
    opened_at timestamptz NOT NULL DEFAULT now(),
    -- The worker whose calls tripped it.
    opened_by text NOT NULL CHECK (length(opened_by) <= 200),
    -- What the last failed call said (redacted by the worker): the tripping one, then each probe's.
    error_kind text NOT NULL CHECK (length(error_kind) <= 100),
    last_error text NOT NULL CHECK (length(last_error) <= 1000),
    probes_failed integer NOT NULL DEFAULT 0 CHECK (probes_failed >= 0),
    next_probe_at timestamptz NOT NULL,
    -- The probe in flight: a job claimed alone for the service by one worker. It is live while
    -- that job runs under that owner's lease; a probe whose worker died ends with its lease.
    probe_job bigint,
    probe_owner text CHECK (length(probe_owner) <= 200),
    probe_started_at timestamptz
);

ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review', 'unavailable', 'available'));
