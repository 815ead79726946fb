-- The newest result for each image path. It shows raw_response, so discern_reader is not granted
-- it (sql/grants.sql).
CREATE OR REPLACE VIEW discern.latest_results AS
SELECT DISTINCT ON (image_path) *
FROM discern.results
ORDER BY image_path, created_at DESC, id DESC;
