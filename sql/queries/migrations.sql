-- discern.schema_migrations, discern.schema_repeatables: what `discern migrate` reads of a database's schema and writes as it brings it up to date, and the script of `migrate --sql` (JobQueue.MigrationPlan, JobQueue.Migrator).
-- The statements a script holds are ended by a `;` in Swift (a statement here has none).

-- name: bootstrap
-- The schema's bookkeeping, made or completed before anything else (idempotent): a script.
CREATE SCHEMA IF NOT EXISTS discern;
CREATE TABLE IF NOT EXISTS discern.schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE discern.schema_migrations ADD COLUMN IF NOT EXISTS breaking boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS discern.schema_repeatables (
    file text PRIMARY KEY,
    checksum text NOT NULL,
    schema_version integer NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now());

-- name: migrationsPresent
-- returns: present boolean?
-- Whether the database has the table of applied migrations at all.
SELECT to_regclass('discern.schema_migrations') IS NOT NULL AS present;

-- name: bookkeepingPresent
-- returns: present boolean?
-- Whether the database has both bookkeeping tables: the migrations' and the repeatables'.
SELECT to_regclass('discern.schema_migrations') IS NOT NULL AND to_regclass('discern.schema_repeatables') IS NOT NULL AS present;

-- name: hasBreakingColumn
-- returns: has boolean?
-- Whether the table of applied migrations has its `breaking` column yet (a database of a
-- release from before it has not).
SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'discern.schema_migrations'::regclass
               AND attname = 'breaking' AND NOT attisdropped) AS has;

-- name: applied
-- returns: version integer, name text, breaking boolean
-- The migrations applied, each with whether it is breaking.
SELECT version, name, breaking FROM discern.schema_migrations;

-- name: appliedBeforeBreaking
-- returns: version integer, name text, breaking boolean
-- The migrations applied, of a table without its `breaking` column: none is.
SELECT version, name, false AS breaking FROM discern.schema_migrations;

-- name: staleRepeatables
-- $1 files: text[]
-- $2 texts: text[]
-- $3 newest: integer
-- returns: file text
-- Of the functions, views and grants files `$1` with their texts `$2`, those whose text
-- differs from what was applied last, unless a binary with newer migrations than `$3` applied
-- them (an older binary never puts its own back).
SELECT u.file FROM unnest($1::text[], $2::text[]) AS u(file, sql)
LEFT JOIN discern.schema_repeatables r ON r.file = u.file
WHERE r.checksum IS DISTINCT FROM md5(u.sql) AND coalesce(r.schema_version, 0) <= $3;

-- name: recordMigrations
-- Records migrations as applied, in a script: `{{rows}}` are `(version, name, breaking)`
-- rows of the binary's own migrations, names dollar-quoted (`SQLText.literal`).
INSERT INTO discern.schema_migrations (version, name, breaking) VALUES
{{rows}};

-- name: recordRepeatables
-- Records functions, views and grants files as applied, in a script: `{{rows}}` are
-- `(file, md5(text), schema version)` rows of the binary's own files, dollar-quoted.
INSERT INTO discern.schema_repeatables (file, checksum, schema_version) VALUES
{{rows}}
ON CONFLICT (file) DO UPDATE SET checksum = excluded.checksum, schema_version = excluded.schema_version, applied_at = now();

-- name: uncheckedFunctionBodies
-- Functions are created with their bodies unchecked, as pg_dump restores them: a function may
-- name a view made after it.
SET LOCAL check_function_bodies = off;

-- name: lock
-- $1 key: bigint
-- returns: nothing
-- Takes discern's migration lock `$1` for the session: concurrent `migrate` runs wait.
SELECT pg_advisory_lock($1);

-- name: unlock
-- $1 key: bigint
-- returns: nothing
SELECT pg_advisory_unlock($1);

-- name: lockTimeout
-- $1 timeout: text
-- returns: nothing
-- How long a step waits for a lock (`$1`, as '5s') before it lets go: for its transaction only.
SELECT set_config('lock_timeout', $1, true);

-- name: scriptLock
-- The migration lock, in the script of `migrate --sql`.
SELECT pg_advisory_lock({{migration_lock_key}});

-- name: scriptUnlock
SELECT pg_advisory_unlock({{migration_lock_key}});

-- name: scriptLockTimeout
-- How long a step of the script waits for a lock before it fails.
SET LOCAL lock_timeout = '{{migration_lock_timeout_seconds}}s';
