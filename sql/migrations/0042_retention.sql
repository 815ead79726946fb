-- discern schema, version 42: retention by kind of data and by service (docs/operations.md,
-- "Retention"; docs/security.md). `discern prune` (the nightly timer and CronJob) applies it in
-- chunks that skip locked rows.
--
-- retention: per service (`*` for any service without a row), after how many days a result's
-- raw answer is dropped (the result keeps its typed columns, entities and reviews, and says so in
-- `redacted_at`) and after how many the result itself goes. NULL keeps it. Biometric services
-- (face identification, liveness) drop raw answers after 30 days by default; vehicle analysis
-- keeps them.
CREATE TABLE discern.retention (
    backend text PRIMARY KEY CHECK (backend IN ('*', 'discerner', 'ooto', 'azure-face', 'landmark', 'unissey')),
    raw_response_days integer CHECK (raw_response_days >= 0),
    results_days integer CHECK (results_days >= 0)
);
INSERT INTO discern.retention (backend, raw_response_days) VALUES ('ooto', 30), ('azure-face', 30), ('unissey', 30);

-- A result whose raw answer retention dropped: when. Its raw_response is then '{}', its typed
-- columns, details, entities and reviews stay. Nullable, no default: added without a rewrite.
ALTER TABLE discern.results ADD COLUMN redacted_at timestamptz;
COMMENT ON COLUMN discern.results.redacted_at IS
    'When retention dropped the raw answer (raw_response is then {}); the typed columns, details, entities and reviews stay. NULL: not redacted.';
