-- discern schema, version 41: erasure of a person's data on request (`discern erase`, docs/
-- operations.md "Erasing a person"; docs/security.md). The log proves an erasure without keeping
-- what it erased: the key only as a salted SHA-256 digest, rows removed per table, and each
-- service's deletion as a step with its outcome and time.
--
-- erasure_salt: one random value per database, mixed into every key's digest, so a digest cannot
-- be looked up in a table of plates or ids made elsewhere; whoever can read it can still check a
-- given key ("was this plate erased?"), which is what a data-protection officer needs.
CREATE TABLE discern.erasure_salt (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    salt text NOT NULL DEFAULT (gen_random_uuid()::text || gen_random_uuid()::text)
);
INSERT INTO discern.erasure_salt DEFAULT VALUES;

CREATE TABLE discern.erasure_requests (
    id bigserial PRIMARY KEY,
    key_kind text NOT NULL CHECK (key_kind IN ('subject', 'plate', 'photo', 'content')),
    key_digest text NOT NULL CHECK (length(key_digest) = 64),
    requested_by text NOT NULL CHECK (length(requested_by) BETWEEN 1 AND 200),
    requested_at timestamptz NOT NULL DEFAULT now(),
    -- Rows removed (or redacted) per table: {"results": 40, "jobs": 40, ...}.
    removed jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(removed) = 'object'),
    state text NOT NULL DEFAULT 'in_progress' CHECK (state IN ('in_progress', 'done')),
    finished_at timestamptz,
    CONSTRAINT done_has_a_time CHECK ((state = 'done') = (finished_at IS NOT NULL))
);
CREATE INDEX erasure_requests_open ON discern.erasure_requests (id) WHERE state = 'in_progress';
COMMENT ON TABLE discern.erasure_requests IS 'Erasure requests (discern erase): the key as a salted digest, never its value.';

-- erasure_steps: a service asked to delete its copy (an OOTO template, an Azure person), as a job
-- of the queue with its retries, breaker and rate limit. `params` (which name the subject) is
-- kept only until the step is done, so a job that vanished can be made again.
CREATE TABLE discern.erasure_steps (
    request_id bigint NOT NULL REFERENCES discern.erasure_requests (id) ON DELETE CASCADE,
    step smallint NOT NULL,
    backend text NOT NULL,
    action text NOT NULL,
    params jsonb,
    job_id bigint,
    state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'done')),
    outcome text,
    rounds integer NOT NULL DEFAULT 1,
    last_error_kind text,
    done_at timestamptz,
    PRIMARY KEY (request_id, step),
    CONSTRAINT done_forgets_the_subject CHECK (state <> 'done' OR (params IS NULL AND job_id IS NULL AND done_at IS NOT NULL))
);
CREATE INDEX erasure_steps_waiting ON discern.erasure_steps (job_id) WHERE state = 'waiting';

ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review', 'unavailable', 'available', 'rate_limit', 'spend_cap',
                      'reanalyse', 'erase'));
