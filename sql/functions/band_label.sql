-- How a confidence band (discern.confidence_band) is shown: '0.0' ... '0.9', and 'none' for -1
-- (no confidence). discern.accuracy, `discern quality` and the console's Quality page label bands
-- through it, so every count by band names its bands alike.
CREATE OR REPLACE FUNCTION discern.band_label(band smallint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN band < 0 THEN 'none' ELSE (band / 10.0)::numeric(2, 1)::text END;
$$;
