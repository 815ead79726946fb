-- discern schema, version 40: trials before a cutover (`discern trial`, docs/operations.md
-- "Trying a candidate before a cutover"). A trial runs a candidate (the same service at another
-- URL or with other settings, or another service that fills the same columns) on a reproducible
-- sample of a batch's photos and keeps its answers here, apart from discern.results: no
-- production view, roll-up, webhook or dedupe reads these tables.
--
-- trials: what was tried on what. `candidate`: the settings the candidate ran with, as the
-- variables it set (a URL without its credentials or query, a secret as "(set)"); `seed` and
-- `sample_count` or `share` make the sample reproducible.
CREATE TABLE discern.trials (
    id bigserial PRIMARY KEY,
    -- Written flat (no BETWEEN inside the AND): a fresh schema reads back the same expression.
    name text NOT NULL UNIQUE CHECK (length(name) >= 1 AND length(name) <= 100 AND name ~ '^[A-Za-z0-9._:-]+$'),
    backend text NOT NULL CHECK (backend IN ('discerner', 'ooto', 'azure-face', 'landmark', 'unissey')),
    action text NOT NULL CHECK (length(action) BETWEEN 1 AND 50),
    -- The production service whose answers the candidate is compared with.
    production_backend text NOT NULL CHECK (production_backend IN ('discerner', 'ooto', 'azure-face', 'landmark', 'unissey')),
    production_action text NOT NULL CHECK (length(production_action) BETWEEN 1 AND 50),
    batch_id bigint NOT NULL REFERENCES discern.batches (id),
    sample_count integer CHECK (sample_count > 0),
    share double precision CHECK (share > 0 AND share <= 1),
    seed bigint NOT NULL,
    candidate jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(candidate) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL DEFAULT current_user,
    CONSTRAINT a_count_or_a_share CHECK ((sample_count IS NULL) <> (share IS NULL))
);
COMMENT ON TABLE discern.trials IS 'Trials of a candidate service or setting on a sample of a batch (discern trial); answers in discern.trial_results.';

-- trial_results: the candidate's answer for each photo of the sample (or why it had none), beside
-- the production result it is compared with. One row per trial and photo: a trial run again
-- asks only for what it lacks.
CREATE TABLE discern.trial_results (
    trial_id bigint NOT NULL REFERENCES discern.trials (id) ON DELETE CASCADE,
    image_path text NOT NULL,
    production_result_id bigint,
    category text,
    subcategory text,
    operator text,
    fleet_id text,
    license_plate text,
    confidence double precision,
    outcome text,
    subject_id text,
    api_calls smallint NOT NULL DEFAULT 0,
    prepare_ms double precision,
    analyze_ms double precision,
    sent_bytes bigint,
    service_host text,
    model text,
    model_version text,
    raw_response jsonb,
    error_kind text,
    error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (trial_id, image_path),
    CONSTRAINT an_answer_or_an_error CHECK ((raw_response IS NULL) <> (error_kind IS NULL))
);
COMMENT ON TABLE discern.trial_results IS 'A trial candidate''s answer per sampled photo, or the error it gave; never read by production views.';
