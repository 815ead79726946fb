-- discern schema, version 5: every entity a service reports, rate limits that space calls
-- exactly, and a succeeded job that stays succeeded.

-- 1. Entities. Image Discerner's format 3.0 reports 0, 1 or many entities per image (a FedEx
-- tractor-trailer and an MSC container in one photo); format 2.0's primary subject is one
-- entity. Every entity is kept, typed, with the result it belongs to. The result row's common
-- columns (category, operator, fleet_id, ...) repeat the primary entity (is_primary), so
-- existing dashboards keep working. docs/backends.md says which entity is primary.
CREATE TABLE discern.entities (
    id                          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    result_id                   bigint NOT NULL REFERENCES discern.results(id) ON DELETE CASCADE,
    -- The entity's place in the service's list, from 0.
    position                    smallint NOT NULL CHECK (position >= 0),
    is_primary                  boolean NOT NULL,
    -- The service's own type, verbatim ("commercial_vehicle:van", "cargo_container").
    type                        text NOT NULL,
    -- The type split at its first colon: category "commercial_vehicle", subtype "van".
    category                    text NOT NULL,
    subtype                     text,
    operator                    text,
    -- The first identifier of each kind; `identifiers` keeps every one as the service wrote it.
    fleet_id                    text,
    license_plate               text,
    license_plate_jurisdiction  text,
    container_id                text,
    tail_id                     text,
    other_ids                   text[] NOT NULL DEFAULT '{}',
    identifiers                 text[] NOT NULL DEFAULT '{}',
    confidence                  double precision CHECK (confidence IS NULL OR confidence BETWEEN 0 AND 1),
    properties                  jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entities_result ON discern.entities (result_id);
CREATE INDEX entities_created_at ON discern.entities USING brin (created_at);

-- Entities with where and when they were seen, for dashboards: "every MSC container last night".
CREATE VIEW discern.entity_sightings AS
SELECT e.id AS entity_id, e.result_id, r.job_id, r.batch_id, r.image_path, r.backend, r.created_at AS seen_at,
       e.position, e.is_primary, e.type, e.category, e.subtype, e.operator, e.fleet_id, e.license_plate,
       e.license_plate_jurisdiction, e.container_id, e.tail_id, e.other_ids, e.identifiers, e.confidence, e.properties
FROM discern.entities e JOIN discern.results r ON r.id = e.result_id;

-- 2. Rate limits as exact schedules (GCRA, the "virtual scheduling" form of a token bucket).
-- Each call reserves the next free moment of its key and sleeps until then: calls are spaced
-- by at least 60 / per_minute seconds after the first `burst`, across every worker, and a
-- waiting worker sleeps once instead of asking again and again. A burst of 1 keeps every call
-- a full interval from the one before: Image Discerner starts at most one analysis per second.
ALTER TABLE discern.rate_limits ADD COLUMN next_at timestamptz;
ALTER TABLE discern.rate_limits DROP COLUMN tokens, DROP COLUMN refilled_at;

CREATE OR REPLACE FUNCTION discern.take_rate_token(limit_key text) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
    bucket discern.rate_limits;
    moment timestamptz := clock_timestamp();
    spacing interval;
    due timestamptz;
BEGIN
    SELECT * INTO bucket FROM discern.rate_limits WHERE key = limit_key FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    spacing := make_interval(secs => 60 / bucket.per_minute);
    -- The theoretical arrival time of the next call; a quiet spell leaves it in the past.
    due := greatest(coalesce(bucket.next_at, moment), moment);
    UPDATE discern.rate_limits SET next_at = due + spacing WHERE key = limit_key;
    -- Up to `burst` calls may run ahead of the schedule.
    RETURN greatest(extract(epoch FROM due - (bucket.burst - 1) * spacing - moment), 0);
END;
$$;

-- The service answered 429: push the whole schedule back, by what the service asked for when it
-- said, else by one burst. Every worker slows down at once.
DROP FUNCTION discern.rate_limited(text);
CREATE FUNCTION discern.rate_limited(limit_key text, retry_after_seconds double precision DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$
    UPDATE discern.rate_limits
    SET next_at = greatest(coalesce(next_at, clock_timestamp()), clock_timestamp())
                  + make_interval(secs => coalesce(retry_after_seconds, 0) + burst * 60 / per_minute)
    WHERE key = limit_key;
$$;

-- Limits shipped, with a margin under the documented figures: the limit is counted where the
-- call arrives, and a call can arrive a little later or earlier than its slot.
--   analyze: 48/min (documented 50/min), one at a time: 1.25 s apart, so no two analyses
--   start in the same wall-clock second, which the service cannot do (contracts.md §1).
--   upload-url: 95/min + burst 5 stays within 100 in any minute.
--   azure-face: 19/min one at a time stays within the free tier's 20 in any minute.
UPDATE discern.rate_limits SET per_minute = 48, burst = 1,
    note = 'Image Discerner: one analysis start per second at most (execution names have 1 s resolution); documented 50/min'
    WHERE key = 'discerner:analyze';
UPDATE discern.rate_limits SET per_minute = 95, burst = 5,
    note = 'Image Discerner documented limit: upload-url 100/min'
    WHERE key = 'discerner:upload-url';
UPDATE discern.rate_limits SET per_minute = 19, burst = 1,
    note = 'Azure Face free tier: 20 calls/min (detect, identify and person-group reads count); standard tier: 10/s'
    WHERE key = 'azure-face';

-- 3. A succeeded job stays succeeded: its result is the one result of that job. Moving it back
-- (an UPDATE ... SET state = 'available') would analyse the image again and either lose the
-- new answer or the old one. Enqueue a new job instead; the old result stays.
CREATE FUNCTION discern.keep_succeeded() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'job % already succeeded and has its result; it cannot become % again', OLD.id, NEW.state
        USING ERRCODE = 'check_violation',
              HINT = 'to analyse the image again, enqueue a new job: SELECT discern.enqueue(image_path, backend, action, params) FROM discern.jobs WHERE id = ' || OLD.id;
END;
$$;

CREATE TRIGGER jobs_keep_succeeded BEFORE UPDATE OF state ON discern.jobs
FOR EACH ROW WHEN (OLD.state = 'succeeded' AND NEW.state <> 'succeeded')
EXECUTE FUNCTION discern.keep_succeeded();
