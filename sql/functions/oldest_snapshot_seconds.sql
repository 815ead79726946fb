-- How long the oldest transaction in this database has been holding back what vacuum may clean,
-- in seconds (0: none), for `discern monitor` (discern_database_oldest_snapshot_seconds) and its
-- DiscernLongTransaction alert: a client's transaction holding a snapshot (a long report, pg_dump,
-- a session idle in REPEATABLE READ) or a transaction id (a write left uncommitted), and prepared
-- transactions. While one holds, the claimed jobs' entries stay in the claimable index, every
-- claim steps over them and discern.jobs cannot be vacuumed (docs/operations.md, "The database's
-- weather"). Timed from the transaction's start: an upper bound for a READ COMMITTED one, whose
-- snapshot is its current statement's. VACUUM, ANALYZE and concurrent index builds are left out:
-- PostgreSQL does not let their snapshots hold back vacuum. Not seen: replication slots and
-- standbys' feedback.
-- Only a role with pg_read_all_stats sees when other roles' transactions began, so this runs as
-- its owner (SECURITY DEFINER) and returns a number, never a query's text; NULL when the owner
-- lacks that right (GRANT pg_read_all_stats TO the schema's owner), rather than a 0 that would
-- look like "none". VOLATILE: it reads the clock (clock_timestamp), not the transaction's start.
CREATE OR REPLACE FUNCTION discern.oldest_snapshot_seconds() RETURNS double precision
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT CASE WHEN pg_has_role('pg_read_all_stats', 'USAGE')
                THEN coalesce(greatest(0, extract(epoch FROM clock_timestamp() - min(held.since)))::double precision, 0) END
    FROM (SELECT a.xact_start AS since FROM pg_stat_activity a
          WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
            AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
            AND a.query !~* '^\s*(vacuum|analyze|create\s+(unique\s+)?index\s+concurrently|reindex\s+.*concurrently)'
          UNION ALL
          SELECT x.prepared FROM pg_prepared_xacts x WHERE x.database = current_database()) AS held
$$;
