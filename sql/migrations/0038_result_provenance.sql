-- discern schema, version 38: every result says which service deployment, model and settings
-- produced it, and which preparation made the bytes sent (docs/services.md, "Provenance"):
-- `service_host` (the endpoint's host, never a credential), `model` and `model_version` as the
-- answer or the request names them (Image Discerner's classification_provider and
-- response_format_version, Azure Face's recognition model), `discern_version` (the worker's
-- release), `byte_budget` (the policy's byte limit), and `provenance` (the other settings and
-- identifiers, and the preparation policy). Only columns, nullable or with a constant default:
-- PostgreSQL adds them without rewriting the table, so the workers' writes wait for nothing but
-- the catalog change. No index (each would cost every completion a write: "provider X last
-- week" reads the BRIN index on created_at) and no backfill (it would rewrite most of the table
-- under the workers): discern.result_provenance recovers Image Discerner's older results'
-- model and format from their raw answers when they are read. Runs beside the previous
-- release's workers: their results say nothing of where they came from, as before.
ALTER TABLE discern.results
    ADD COLUMN service_host text,
    ADD COLUMN model text,
    ADD COLUMN model_version text,
    ADD COLUMN discern_version text,
    ADD COLUMN byte_budget bigint,
    ADD COLUMN provenance jsonb DEFAULT '{}'::jsonb NOT NULL;
COMMENT ON COLUMN discern.results.service_host IS 'The host (and port) of the service endpoint that answered; never a credential.';
COMMENT ON COLUMN discern.results.model IS 'The model or provider the answer names, or the one the request used (Image Discerner: classification_provider; Azure Face: the recognition model).';
COMMENT ON COLUMN discern.results.model_version IS 'The version of the answer''s form or of the service''s API (Image Discerner: response_format_version; Azure Face: face/v1.0).';
COMMENT ON COLUMN discern.results.discern_version IS 'The discern release that wrote the result (discern version).';
COMMENT ON COLUMN discern.results.byte_budget IS 'The preparation policy''s byte budget the bytes sent had to fit.';
COMMENT ON COLUMN discern.results.provenance IS 'What else changes an answer: the request''s settings (thresholds, person group, action), the answer''s other identifiers, and the preparation policy (preparation).';
