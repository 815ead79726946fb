-- Where each result came from, older results included (docs/services.md, "Provenance"): results
-- written before migration 38 carry none of it, and Image Discerner's get their model and answer
-- format back here from their raw answers as they are read, the way the worker reads them today
-- (the format from `processing_metadata`, else the answer's shape). No row is rewritten for it:
-- a backfill would rewrite most of the table under the workers' writes. `recovered` says which.
-- Readable by discern_reader: it shows the derived columns, never the raw answer.
CREATE OR REPLACE VIEW discern.result_provenance AS
SELECT r.id, r.job_id, r.batch_id, r.image_path, r.backend, r.action, r.created_at, r.service_host,
       coalesce(r.model, CASE WHEN r.backend = 'discerner' THEN
           nullif(left(r.raw_response #>> '{analysis_result,body,processing_metadata,classification_provider}', 200), '') END) AS model,
       coalesce(r.model_version, CASE WHEN r.backend = 'discerner' THEN coalesce(
           nullif(left(r.raw_response #>> '{analysis_result,body,processing_metadata,response_format_version}', 16), ''),
           CASE WHEN r.raw_response #> '{analysis_result,body,entities}' IS NOT NULL THEN '3.0' ELSE '2.0' END) END) AS model_version,
       r.discern_version, r.byte_budget,
       r.model_version IS NULL AND r.backend = 'discerner' AS recovered
FROM discern.results r;
