-- Marks batches as changed by the current transaction (batches.generation becomes its txid),
-- once per transaction and batch; the batch_rows_changed triggers call it. discern.batch_summary
-- trusts a stored summary only while the generation is unchanged, and a change commits with its
-- mark, so a stored summary never outlives what it counted. SECURITY DEFINER: discern_enqueue
-- inserts jobs but may not update batches.
CREATE OR REPLACE FUNCTION discern.mark_batches_changed(batch_ids bigint[]) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $$
    UPDATE discern.batches SET generation = txid_current()
    WHERE id = ANY (batch_ids) AND generation <> txid_current();
$$;
