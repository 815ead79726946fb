-- discern.operator_actions: the console's /log page, what people did through discern, newest first (QueueReads.OperatorLogPage).

-- name: page
-- $1 before: bigint?
-- $2 limit: integer
-- returns: doc text?
-- `$2` operator actions, newest first, older than the action `$1` when given (keyset pages).
SELECT json_build_object('items', coalesce(json_agg(x ORDER BY x.at DESC, x.id DESC), '[]')) AS doc FROM (
  SELECT id, at, actor, action, scope, jobs FROM discern.operator_actions
  WHERE $1::bigint IS NULL OR (at, id) < (SELECT o.at, o.id FROM discern.operator_actions o WHERE o.id = $1)
  ORDER BY at DESC, id DESC LIMIT $2) x;
