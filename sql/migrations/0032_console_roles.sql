-- discern schema, version 32: the console's admin actions (docs/console.md, "Who may act") are
-- in the operator log like every other: a shared rate limit's pace set, a spend cap set.
ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review', 'unavailable', 'available', 'rate_limit', 'spend_cap'));
