-- discern schema, version 13: one batch's results, newest first, without reading others'.
--
-- The console's results grid filtered by a batch asks for the newest 50 results of that batch.
-- With a BRIN index on results.batch_id the planner walked the primary key backwards and
-- checked every result: for a batch with few or no results yet, all 19 million of them
-- (5.4 s in bench/results). A b-tree on (batch_id, id) answers from the batch's own entries.
-- Results are only appended, and a batch's are appended together: the index grows at the
-- right edge of each batch's range and costs one entry per result.
DROP INDEX IF EXISTS discern.results_batch;
CREATE INDEX results_batch ON discern.results (batch_id, id);
