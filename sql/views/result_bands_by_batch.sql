-- Results by confidence band per batch and backend, folded or still pending: the Quality page's
-- and `discern quality`'s figures for one batch, without counting the batch's results.
CREATE OR REPLACE VIEW discern.result_bands_by_batch AS
SELECT batch_id, backend, band, sum(results)::bigint AS results
FROM (SELECT batch_id, backend, band, results FROM discern.result_band_batches
      UNION ALL
      SELECT batch_id, backend, discern.confidence_band(confidence), count(*) FROM discern.pending_result_events WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;
