-- The newest result for each image path from each service: a photo analysed by two services
-- shows both (filter on backend for one). It shows raw_response, so discern_reader is not granted
-- it (sql/grants.sql). Pin a provenance by filtering the table instead, e.g. the newest answer
-- per photo from one provider:
--   SELECT DISTINCT ON (image_path) * FROM discern.results
--   WHERE backend = 'discerner' AND model = 'provider-x' ORDER BY image_path, created_at DESC, id DESC;
CREATE OR REPLACE VIEW discern.latest_results AS
SELECT DISTINCT ON (image_path, backend) *
FROM discern.results
ORDER BY image_path, backend, created_at DESC, id DESC;
