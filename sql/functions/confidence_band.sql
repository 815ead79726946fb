-- A confidence's band, a tenth wide: 0 (0.0 to 0.1) ... 9 (0.9 to 1.0, 1.0 included), -1 without
-- one. Every count by band goes through it (the roll-up's band tables and views, discern.accuracy,
-- `discern quality`), so they all agree on the edges; discern.band_label shows a band.
CREATE OR REPLACE FUNCTION discern.confidence_band(confidence double precision) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN confidence IS NULL THEN -1 ELSE least(floor(confidence * 10), 9)::smallint END;
$$;
