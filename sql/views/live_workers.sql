-- A worker is live while it heartbeats; three missed heartbeats and it is taken for dead (the
-- rescuer then hands back its jobs). `discern status`, the console's Overview and Batches pages
-- and discern.unserved_backends read it.
CREATE OR REPLACE VIEW discern.live_workers AS
SELECT id, host, pid, version, backends, started_at, last_heartbeat_at
FROM discern.workers
WHERE stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => 3 * heartbeat_seconds);
