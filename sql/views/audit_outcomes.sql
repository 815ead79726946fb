-- Each audited result's newest review, field by field: what the service read against what a
-- person says is there, and which of four it is: right (the same, or both absent), wrong (both
-- present, different), missing (present, not read), invented (read, not there). Texts are
-- compared without case and outer spaces. `cannot_tell` reviews are left out. discern.accuracy,
-- `discern quality` and the console's Quality page count these.
CREATE OR REPLACE VIEW discern.audit_outcomes AS
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
