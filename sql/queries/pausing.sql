-- discern.paused_backends, discern.operator_actions: pausing and resuming a service, each with its line in the operator log when it changed anything (JobQueue.Pausing).

-- name: pause
-- $1 service: text
-- $2 by: text
-- $3 reason: text?
-- $4 scope: text
-- returns: changed boolean?
-- Pauses the service `$1` as `$2` for the reason `$3` (sql/functions/pause.sql); true when it
-- ran and is paused now.
WITH done AS (SELECT discern.pause($1, $2, $3) AS changed),
logged AS (INSERT INTO discern.operator_actions (actor, action, scope) SELECT $2, 'pause', $4 FROM done WHERE changed)
SELECT changed FROM done;

-- name: resume
-- $1 service: text
-- $2 by: text
-- $3 scope: text
-- returns: changed boolean?
-- Lets the service `$1` run again (sql/functions/resume.sql, which wakes the listening
-- workers); true when it was paused.
WITH done AS (SELECT discern.resume($1) AS changed),
logged AS (INSERT INTO discern.operator_actions (actor, action, scope) SELECT $2, 'resume', $3 FROM done WHERE changed)
SELECT changed FROM done;
