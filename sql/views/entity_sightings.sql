-- Entities with where and when they were seen, for dashboards: "every MSC container last night"
-- (container_id LIKE 'MSCU%' AND seen_at > now() - interval '1 day').
CREATE OR REPLACE VIEW discern.entity_sightings AS
SELECT e.id AS entity_id, e.result_id, r.job_id, r.batch_id, r.image_path, r.backend, r.created_at AS seen_at,
       e.position, e.is_primary, e.type, e.category, e.subtype, e.operator, e.fleet_id, e.license_plate,
       e.license_plate_jurisdiction, e.container_id, e.tail_id, e.other_ids, e.identifiers, e.confidence, e.properties
FROM discern.entities e JOIN discern.results r ON r.id = e.result_id;
