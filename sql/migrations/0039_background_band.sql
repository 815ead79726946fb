-- discern schema, version 39: the background band, and re-analysis in the operator log. A job
-- with priority 30000 or more (a re-analysis, discern.reanalyse; a near-duplicate, 32767) runs
-- only when no other job of its service waits: the claim's oldest-first share (FairShare,
-- docs/design.md "Queue") no longer serves it, so a re-analysis of last quarter enqueued before
-- tonight's photos does not take a tenth of the claims from them. The oldest-first lookup reads this index, which holds only the
-- ordinary band. Built under a short write lock on jobs: one entry per waiting job.
CREATE INDEX jobs_claimable_oldest_ordinary ON discern.jobs USING btree (backend, run_at, id)
    WHERE state = 'available' AND priority < 30000;
DROP INDEX discern.jobs_claimable_oldest;

-- A re-analysis started (discern.reanalyse through `discern reanalyse`) is in the operator log.
ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review', 'unavailable', 'available', 'rate_limit', 'spend_cap',
                      'reanalyse'));
