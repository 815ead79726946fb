-- discern schema, version 8: people's review of what a service read (the console's review page),
-- and indexes the console's pages lean on.

-- One row per review: a person confirmed the service's reading, or corrected operator, fleet ID
-- or licence plate. Rows are never updated: the newest review of a result is what counts, the
-- older ones are its history.
CREATE TABLE discern.corrections (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    result_id      bigint NOT NULL REFERENCES discern.results(id) ON DELETE CASCADE,
    confirmed      boolean NOT NULL,
    operator       text CHECK (length(operator) <= 200),
    fleet_id       text CHECK (length(fleet_id) <= 200),
    license_plate  text CHECK (length(license_plate) <= 50),
    corrected_by   text NOT NULL CHECK (length(corrected_by) BETWEEN 1 AND 200),
    corrected_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT confirmed_or_corrected CHECK (confirmed OR coalesce(operator, fleet_id, license_plate) IS NOT NULL)
);
CREATE INDEX corrections_result ON discern.corrections (result_id, id DESC);

-- Results with the reviewed values where a review exists: dashboards read this instead of
-- discern.results to show what a person confirmed. read_* keep what the service read.
CREATE VIEW discern.reviewed_results AS
SELECT r.id AS result_id, r.job_id, r.batch_id, r.image_path, r.backend, r.category, r.confidence, r.created_at,
       CASE WHEN c.id IS NULL OR c.confirmed THEN r.operator ELSE coalesce(c.operator, r.operator) END AS operator,
       CASE WHEN c.id IS NULL OR c.confirmed THEN r.fleet_id ELSE coalesce(c.fleet_id, r.fleet_id) END AS fleet_id,
       CASE WHEN c.id IS NULL OR c.confirmed THEN r.license_plate ELSE coalesce(c.license_plate, r.license_plate) END AS license_plate,
       r.operator AS read_operator, r.fleet_id AS read_fleet_id, r.license_plate AS read_license_plate,
       c.id IS NOT NULL AS reviewed, c.confirmed, c.corrected_by AS reviewed_by, c.corrected_at AS reviewed_at
FROM discern.results r
LEFT JOIN LATERAL (
    SELECT x.id, x.confirmed, x.operator, x.fleet_id, x.license_plate, x.corrected_by, x.corrected_at
    FROM discern.corrections x WHERE x.result_id = r.id ORDER BY x.id DESC LIMIT 1
) c ON true;

-- The review queue: least confident results first.
CREATE INDEX results_confidence ON discern.results (confidence, id) WHERE confidence IS NOT NULL;
-- Dead jobs by kind (discern.errors_by_kind, the console's dead page) without reading the rest.
CREATE INDEX jobs_dead ON discern.jobs (backend, error_kind) WHERE state = 'dead';
