-- The 95 % Wilson score interval of `right_count` successes in `n` trials (n > 0): the range
-- discern.accuracy, `discern quality` and the console's Quality page give around each measured
-- accuracy. Wilson rather than the normal approximation: audit samples are small and accuracies
-- near 1, where the normal interval collapses or leaves [0, 1].
CREATE OR REPLACE FUNCTION discern.wilson(right_count bigint, n bigint, OUT low double precision, OUT high double precision)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT greatest(0, (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)),
           least(1, (p + z * z / (2 * n) + z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n))) / (1 + z * z / n))
    FROM (SELECT right_count::float8 / n AS p, 1.959963984540054::float8 AS z) v;
$$;
