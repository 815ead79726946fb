-- discern schema, version 25: who did what. Every retry, cancel, pause, resume and review made
-- through discern (the console, the CLI) is a row: who, when, what, on which jobs, how many. A
-- job's page lists the rows that name it (or its batch, for an action over a whole batch); the
-- console's /log lists them all. Calls of discern.retry and the like from psql are the
-- database's own log's business (log_statement), not this table's.
CREATE TABLE discern.operator_actions (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
    action text NOT NULL CHECK (action IN ('retry', 'cancel', 'pause', 'resume', 'review')),
    -- What it was asked to act on, as a person reads it: "batch nightly, kind http_5xx".
    scope text NOT NULL CHECK (length(scope) <= 1000),
    jobs integer NOT NULL DEFAULT 0,
    -- The jobs it changed, when at most 1,000 (an action over more names its batch in scope).
    job_ids bigint[],
    batch_id bigint
);
CREATE INDEX operator_actions_at ON discern.operator_actions (at DESC, id DESC);
CREATE INDEX operator_actions_jobs ON discern.operator_actions USING gin (job_ids);
CREATE INDEX operator_actions_batch ON discern.operator_actions (batch_id) WHERE batch_id IS NOT NULL;

DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT SELECT, INSERT ON discern.operator_actions TO discern_worker;
        GRANT USAGE ON SEQUENCE discern.operator_actions_id_seq TO discern_worker;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT ON discern.operator_actions TO discern_reader;
    END IF;
END;
$grants$;
