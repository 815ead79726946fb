-- The newest result for each image path from each service and action: a photo analysed by two
-- services shows both (filter on backend for one; until migration 38 this view kept one row per
-- path, the newest from any service). It shows raw_response, so discern_reader is not granted it
-- (sql/grants.sql). To pin a provenance, filter discern.results (or discern.result_provenance),
-- e.g. the newest answer per photo from one provider:
--   SELECT DISTINCT ON (image_path) * FROM discern.results
--   WHERE backend = 'discerner' AND model = 'provider-x' ORDER BY image_path, created_at DESC, id DESC;
CREATE OR REPLACE VIEW discern.latest_results AS
SELECT DISTINCT ON (image_path, backend, action) *
FROM discern.results
ORDER BY image_path, backend, action, created_at DESC, id DESC;
