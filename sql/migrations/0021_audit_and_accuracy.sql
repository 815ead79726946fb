-- discern schema, version 21: how right is the service (issue 25).
--
-- Reviewing the least confident results cannot say how often the service is right: that sample
-- is biased by construction. A uniform random share of each backend's results is marked for an
-- audit when the result is written; people review the audit queue apart from the low-confidence
-- one, and accuracy is measured from audit reviews alone (docs/sql.md, "Measured accuracy").

-- How large a share of each backend's results is audited. `*` applies to a backend without a
-- row of its own. The pick is reproducible: a hash of the job id (the result id for a result
-- without a job) and the seed, below the rate. Changing the rate or the seed changes only the
-- picks of results written afterwards: a result is picked, or not, once, when it is written.
CREATE TABLE discern.audit_settings (
    backend  text PRIMARY KEY CHECK (length(backend) BETWEEN 1 AND 100),
    rate     double precision NOT NULL CHECK (rate BETWEEN 0 AND 1),
    seed     bigint NOT NULL DEFAULT 0
);
INSERT INTO discern.audit_settings (backend, rate) VALUES ('*', 0.02);

-- Results written before this migration are not in the sample. Afterwards a writer either sets
-- the pick itself (the completion does, with discern.audit_pick: cheaper than a trigger call per
-- row) or leaves it out and the trigger below makes it.
ALTER TABLE discern.results ADD COLUMN audit boolean NOT NULL DEFAULT false;
ALTER TABLE discern.results ALTER COLUMN audit DROP DEFAULT;

-- Whether a result is in the audit sample: the same answer for the same job and seed, anywhere.
CREATE FUNCTION discern.audit_pick(key bigint, rate double precision, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT rate > 0 AND ((hashtextextended(key::text, seed) & 9223372036854775807)::float8 / 9223372036854775807.0) < rate;
$$;

-- A confidence's band, a tenth wide: 0 (0.0 to 0.1) ... 9 (0.9 to 1.0), -1 without one; and how
-- a band is shown: '0.0' ... '0.9', 'none'. Every count by band goes through these two.
CREATE FUNCTION discern.confidence_band(confidence double precision) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN confidence IS NULL THEN -1 ELSE least(floor(confidence * 10), 9)::smallint END;
$$;
CREATE FUNCTION discern.band_label(band smallint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN band < 0 THEN 'none' ELSE (band / 10.0)::numeric(2, 1)::text END;
$$;

CREATE FUNCTION discern.mark_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    chosen discern.audit_settings;
BEGIN
    SELECT * INTO chosen FROM discern.audit_settings WHERE backend IN (NEW.backend, '*')
    ORDER BY backend = '*' LIMIT 1;
    NEW.audit := chosen.backend IS NOT NULL AND discern.audit_pick(coalesce(NEW.job_id, NEW.id), chosen.rate, chosen.seed);
    RETURN NEW;
END;
$$;
CREATE TRIGGER results_mark_audit BEFORE INSERT ON discern.results
FOR EACH ROW WHEN (NEW.audit IS NULL) EXECUTE FUNCTION discern.mark_audit();

-- The audit sample in a small index of its own, carrying what accuracy is measured on: the
-- audit queue (newest first) and discern.audit_outcomes (by id, from the reviews) read it
-- without touching the results' heap (bench/console: the quality page 124 ms p95 with heap
-- reads at a million results, about 80 with this).
CREATE INDEX results_audit ON discern.results (id)
    INCLUDE (backend, batch_id, created_at, confidence, category, operator, fleet_id, license_plate) WHERE audit;
-- And by time: how many of the last days' sample wait for a review (the review page's count).
CREATE INDEX results_audit_time ON discern.results (created_at) INCLUDE (id) WHERE audit;

-- A review's verdict: `confirmed` (what the service read is right), `corrected` (a person says
-- what is there: an empty text means "there is none"), or `cannot_tell` (the photo does not
-- show it; it counts for no field). `confirmed` stays for what already reads it.
ALTER TABLE discern.corrections ADD COLUMN verdict text;
UPDATE discern.corrections SET verdict = CASE WHEN confirmed THEN 'confirmed' ELSE 'corrected' END;
ALTER TABLE discern.corrections ALTER COLUMN verdict SET NOT NULL,
    ADD CONSTRAINT corrections_verdict CHECK (verdict IN ('confirmed', 'corrected', 'cannot_tell')),
    ADD COLUMN category text CHECK (length(category) <= 200),
    DROP CONSTRAINT confirmed_or_corrected,
    ADD CONSTRAINT confirmed_or_corrected CHECK (
        (verdict = 'confirmed') = confirmed
        AND (verdict <> 'corrected' OR coalesce(operator, fleet_id, license_plate, category) IS NOT NULL));
-- A writer that names no verdict (SQL written before this version) gets the one `confirmed` says.
CREATE FUNCTION discern.correction_verdict() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.verdict := CASE WHEN NEW.confirmed THEN 'confirmed' ELSE 'corrected' END;
    RETURN NEW;
END;
$$;
CREATE TRIGGER corrections_verdict BEFORE INSERT ON discern.corrections
FOR EACH ROW WHEN (NEW.verdict IS NULL) EXECUTE FUNCTION discern.correction_verdict();

-- Reviewed values: an empty correction means "there is none".
CREATE OR REPLACE VIEW discern.reviewed_results AS
SELECT r.id AS result_id, r.job_id, r.batch_id, r.image_path, r.backend, r.category, r.confidence, r.created_at,
       CASE WHEN c.id IS NULL OR c.verdict <> 'corrected' THEN r.operator ELSE nullif(coalesce(c.operator, r.operator), '') END AS operator,
       CASE WHEN c.id IS NULL OR c.verdict <> 'corrected' THEN r.fleet_id ELSE nullif(coalesce(c.fleet_id, r.fleet_id), '') END AS fleet_id,
       CASE WHEN c.id IS NULL OR c.verdict <> 'corrected' THEN r.license_plate
            ELSE nullif(coalesce(c.license_plate, r.license_plate), '') END AS license_plate,
       r.operator AS read_operator, r.fleet_id AS read_fleet_id, r.license_plate AS read_license_plate,
       c.id IS NOT NULL AS reviewed, c.confirmed, c.corrected_by AS reviewed_by, c.corrected_at AS reviewed_at
FROM discern.results r
LEFT JOIN LATERAL (
    SELECT x.id, x.confirmed, x.verdict, x.operator, x.fleet_id, x.license_plate, x.corrected_by, x.corrected_at
    FROM discern.corrections x WHERE x.result_id = r.id ORDER BY x.id DESC LIMIT 1
) c ON true;

-- Each audited result's newest review, field by field: what the service read against what a
-- person says is there, and which of four it is: right (the same, or both absent), wrong (both
-- present, different), missing (present, not read), invented (read, not there). Texts are
-- compared without case and outer spaces. `cannot_tell` reviews are left out.
CREATE VIEW discern.audit_outcomes AS
SELECT r.id AS result_id, r.backend, r.batch_id, r.confidence, r.created_at, c.corrected_at AS reviewed_at, f.field,
       f.read, f.truth,
       CASE WHEN f.read IS NULL AND f.truth IS NULL THEN 'right'
            WHEN f.read IS NULL THEN 'missing'
            WHEN f.truth IS NULL THEN 'invented'
            WHEN lower(trim(f.read)) = lower(trim(f.truth)) THEN 'right'
            ELSE 'wrong' END AS outcome
-- From the reviews (a person's pace: thousands), never from the whole sample (2 % of every
-- result ever written): each result's newest review, then the result by the audit index.
FROM (SELECT DISTINCT ON (x.result_id) x.result_id, x.verdict, x.operator, x.fleet_id, x.license_plate, x.category, x.corrected_at
      FROM discern.corrections x ORDER BY x.result_id, x.id DESC) c
JOIN discern.results r ON r.id = c.result_id AND r.audit
CROSS JOIN LATERAL (VALUES
    ('operator', r.operator, CASE WHEN c.verdict = 'corrected' THEN nullif(coalesce(c.operator, r.operator), '') ELSE r.operator END),
    ('fleet_id', r.fleet_id, CASE WHEN c.verdict = 'corrected' THEN nullif(coalesce(c.fleet_id, r.fleet_id), '') ELSE r.fleet_id END),
    ('license_plate', r.license_plate,
     CASE WHEN c.verdict = 'corrected' THEN nullif(coalesce(c.license_plate, r.license_plate), '') ELSE r.license_plate END),
    ('category', r.category, CASE WHEN c.verdict = 'corrected' THEN nullif(coalesce(c.category, r.category), '') ELSE r.category END)
) AS f(field, read, truth)
WHERE c.verdict <> 'cannot_tell';

-- The 95 % Wilson score interval of `right` successes in `n` trials (n > 0).
CREATE FUNCTION discern.wilson(right_count bigint, n bigint, OUT low double precision, OUT high double precision)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT greatest(0, (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)),
           least(1, (p + z * z / (2 * n) + z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n))) / (1 + z * z / n))
    FROM (SELECT right_count::float8 / n AS p, 1.959963984540054::float8 AS z) v;
$$;

-- Measured accuracy per backend and field, by confidence band (a tenth wide; `all` for the
-- whole), from audit reviews only: for dashboards. The console and `discern quality` read the
-- same counts with filters by batch and time.
CREATE VIEW discern.accuracy AS
SELECT backend, field, band, n, right_count, n - right_count AS errors, wrong, missing, invented,
       right_count::float8 / n AS accuracy, (discern.wilson(right_count, n)).low AS accuracy_low,
       (discern.wilson(right_count, n)).high AS accuracy_high
FROM (
    SELECT backend, field, CASE WHEN GROUPING(band) = 1 THEN 'all' ELSE discern.band_label(band) END AS band, count(*) AS n,
           count(*) FILTER (WHERE outcome = 'right') AS right_count, count(*) FILTER (WHERE outcome = 'wrong') AS wrong,
           count(*) FILTER (WHERE outcome = 'missing') AS missing, count(*) FILTER (WHERE outcome = 'invented') AS invented
    FROM (SELECT backend, field, outcome, discern.confidence_band(confidence) AS band
          FROM discern.audit_outcomes) o
    GROUP BY GROUPING SETS ((backend, field, band), (backend, field))
) x;

-- Results by confidence band (a tenth wide; -1: no confidence) per day and per batch: what a
-- review threshold costs, read without counting every result (bench/console: 1.1 s at a
-- million results before). Folded by discern.roll_up from the same pending events as the
-- other result roll-ups; discern.result_bands adds those not folded yet.
CREATE TABLE discern.result_band_days (
    day      date NOT NULL,
    backend  text NOT NULL,
    band     smallint NOT NULL,
    results  bigint NOT NULL,
    PRIMARY KEY (day, backend, band)
);
CREATE TABLE discern.result_band_batches (
    batch_id  bigint NOT NULL,
    backend   text NOT NULL,
    band      smallint NOT NULL,
    results   bigint NOT NULL,
    PRIMARY KEY (batch_id, backend, band)
);

CREATE OR REPLACE FUNCTION discern.roll_up() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    jobs_moved bigint;
    results_moved bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('discern.roll_up')) THEN
        RETURN 0;
    END IF;

    -- One statement per pending table: the DELETE's RETURNING feeds every upsert of it.
    WITH moved AS (DELETE FROM discern.pending_job_events RETURNING *),
    counts AS (
        INSERT INTO discern.job_state_counts AS c (backend, state, jobs)
        SELECT backend, state, sum(delta) FROM moved GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (backend, state) DO UPDATE SET jobs = c.jobs + excluded.jobs),
    minutes AS (
        INSERT INTO discern.job_minutes AS m (minute, backend, state, jobs)
        SELECT finished_minute, backend, state, sum(delta) FROM moved WHERE finished_minute IS NOT NULL
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, state) DO UPDATE SET jobs = m.jobs + excluded.jobs)
    SELECT count(*) INTO jobs_moved FROM moved;

    WITH moved AS (DELETE FROM discern.pending_result_events RETURNING *),
    minutes AS (
        INSERT INTO discern.result_minutes AS m (minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum)
        SELECT date_trunc('minute', created_at), backend, action, count(*), sum(original_bytes), sum(sent_bytes), sum(analyze_ms)
        FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, action) DO UPDATE
        SET results = m.results + excluded.results, original_bytes = m.original_bytes + excluded.original_bytes,
            sent_bytes = m.sent_bytes + excluded.sent_bytes, analyze_ms_sum = m.analyze_ms_sum + excluded.analyze_ms_sum),
    hours AS (
        INSERT INTO discern.result_hours AS h (hour, backend, action, outcome, category, operator, results, confidence_sum,
                                               confidence_count, last_result_at)
        SELECT date_trunc('hour', created_at), backend, action, outcome, category, operator, count(*),
               coalesce(sum(confidence), 0), count(confidence), max(created_at)
        FROM moved GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (hour, backend, action, outcome, category, operator) DO UPDATE
        SET results = h.results + excluded.results, confidence_sum = h.confidence_sum + excluded.confidence_sum,
            confidence_count = h.confidence_count + excluded.confidence_count,
            last_result_at = greatest(h.last_result_at, excluded.last_result_at)),
    batches AS (
        INSERT INTO discern.result_batches AS b (batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes,
                                                 passed_through, prepare_ms_sum, analyze_ms_sum, first_at, last_at)
        SELECT batch_id, backend, outcome, count(*), sum(api_calls), sum(original_bytes), sum(sent_bytes),
               count(*) FILTER (WHERE passed_through), sum(prepare_ms), sum(analyze_ms), min(created_at), max(created_at)
        FROM moved WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (batch_id, backend, outcome) DO UPDATE
        SET results = b.results + excluded.results, api_calls = b.api_calls + excluded.api_calls,
            original_bytes = b.original_bytes + excluded.original_bytes, sent_bytes = b.sent_bytes + excluded.sent_bytes,
            passed_through = b.passed_through + excluded.passed_through,
            prepare_ms_sum = b.prepare_ms_sum + excluded.prepare_ms_sum,
            analyze_ms_sum = b.analyze_ms_sum + excluded.analyze_ms_sum, first_at = least(b.first_at, excluded.first_at),
            last_at = greatest(b.last_at, excluded.last_at)),
    band_days AS (
        INSERT INTO discern.result_band_days AS d (day, backend, band, results)
        SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*)
        FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, backend, band) DO UPDATE SET results = d.results + excluded.results),
    band_batches AS (
        INSERT INTO discern.result_band_batches AS bb (batch_id, backend, band, results)
        SELECT batch_id, backend, discern.confidence_band(confidence), count(*)
        FROM moved WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (batch_id, backend, band) DO UPDATE SET results = bb.results + excluded.results)
    SELECT count(*) INTO results_moved FROM moved;
    RETURN jobs_moved + results_moved;
END;
$$;

CREATE OR REPLACE FUNCTION discern.recount_rollups() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('discern.roll_up'));
    LOCK TABLE discern.jobs, discern.results IN SHARE MODE;
    TRUNCATE discern.pending_job_events, discern.pending_result_events, discern.job_state_counts, discern.job_minutes,
             discern.result_minutes, discern.result_hours, discern.result_batches, discern.result_band_days,
             discern.result_band_batches;
    -- Straight from the tables (not through the pending tables: a third of the writing at
    -- 20 million rows).
    INSERT INTO discern.job_state_counts (backend, state, jobs)
    SELECT backend, state, count(*) FROM discern.jobs WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2;
    INSERT INTO discern.job_minutes (minute, backend, state, jobs)
    SELECT date_trunc('minute', coalesce(finished_at, created_at)), backend, state, count(*)
    FROM discern.jobs WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2, 3;
    DROP TABLE IF EXISTS pg_temp.recounted;
    CREATE TEMPORARY TABLE recounted ON COMMIT DROP AS
    SELECT date_trunc('minute', created_at) AS minute, batch_id, backend, action, coalesce(outcome, 'unknown') AS outcome,
           coalesce(category, '') AS category, coalesce(operator, '') AS operator, count(*) AS results,
           coalesce(sum(confidence), 0) AS confidence_sum, count(confidence) AS confidence_count, sum(api_calls) AS api_calls,
           sum(original_bytes) AS original_bytes, sum(sent_bytes) AS sent_bytes, count(*) FILTER (WHERE passed_through) AS passed_through,
           sum(prepare_ms) AS prepare_ms_sum, sum(analyze_ms) AS analyze_ms_sum, min(created_at) AS first_at, max(created_at) AS last_at
    FROM discern.results GROUP BY 1, 2, 3, 4, 5, 6, 7;
    INSERT INTO discern.result_minutes (minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum)
    SELECT minute, backend, action, sum(results), sum(original_bytes), sum(sent_bytes), sum(analyze_ms_sum) FROM recounted GROUP BY 1, 2, 3;
    INSERT INTO discern.result_hours (hour, backend, action, outcome, category, operator, results, confidence_sum, confidence_count, last_result_at)
    SELECT date_trunc('hour', minute), backend, action, outcome, category, operator, sum(results), sum(confidence_sum),
           sum(confidence_count), max(last_at)
    FROM recounted GROUP BY 1, 2, 3, 4, 5, 6;
    INSERT INTO discern.result_batches (batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes, passed_through,
                                        prepare_ms_sum, analyze_ms_sum, first_at, last_at)
    SELECT batch_id, backend, outcome, sum(results), sum(api_calls), sum(original_bytes), sum(sent_bytes), sum(passed_through),
           sum(prepare_ms_sum), sum(analyze_ms_sum), min(first_at), max(last_at)
    FROM recounted WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3;
    INSERT INTO discern.result_band_days (day, backend, band, results)
    SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*) FROM discern.results GROUP BY 1, 2, 3;
    INSERT INTO discern.result_band_batches (batch_id, backend, band, results)
    SELECT batch_id, backend, discern.confidence_band(confidence), count(*) FROM discern.results WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3;
END;
$$;

-- The bands of the results already there, without recounting every other roll-up: with the
-- roll-up's lock held and writers of results waiting, what is pending is folded first (into
-- the other roll-ups and these), then these are counted from the results themselves.
SELECT pg_advisory_xact_lock(hashtext('discern.roll_up'));
LOCK TABLE discern.results IN SHARE MODE;
SELECT discern.roll_up();
TRUNCATE discern.result_band_days, discern.result_band_batches;
INSERT INTO discern.result_band_days (day, backend, band, results)
SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*) FROM discern.results GROUP BY 1, 2, 3;
INSERT INTO discern.result_band_batches (batch_id, backend, band, results)
SELECT batch_id, backend, discern.confidence_band(confidence), count(*) FROM discern.results WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3;

-- Results by band per UTC day, folded or still pending.
CREATE VIEW discern.result_bands AS
SELECT day, backend, band, sum(results)::bigint AS results
FROM (SELECT day, backend, band, results FROM discern.result_band_days
      UNION ALL
      SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*)
      FROM discern.pending_result_events GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;
CREATE VIEW discern.result_bands_by_batch AS
SELECT batch_id, backend, band, sum(results)::bigint AS results
FROM (SELECT batch_id, backend, band, results FROM discern.result_band_batches
      UNION ALL
      SELECT batch_id, backend, discern.confidence_band(confidence), count(*) FROM discern.pending_result_events WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;

DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT (audit) ON discern.results TO discern_reader;
        GRANT SELECT ON discern.audit_settings, discern.audit_outcomes, discern.accuracy, discern.reviewed_results,
                        discern.result_bands, discern.result_bands_by_batch TO discern_reader;
        GRANT EXECUTE ON FUNCTION discern.wilson(bigint, bigint) TO discern_reader;
    END IF;
END;
$grants$;
