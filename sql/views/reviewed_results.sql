-- Results with the reviewed values where a review exists: dashboards read this instead of
-- discern.results to show what a person confirmed or corrected; read_* keep what the service
-- read. The newest review counts; an empty correction means "there is none" (NULL).
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
