import Postgres
import SQLSchema

/// Brings a database to the schema this binary carries (docs/sql.md):
/// 1. a new database gets sql/schema.sql (tables, indexes, seed rows: what every migration
///    leaves) in one transaction;
/// 2. a database made before (by migrations 1 to 25, the baseline, or later) gets the numbered
///    migrations it lacks, in order, each in its own transaction;
/// 3. every function, view and grants file whose text changed since it was last applied, all
///    in one transaction (repeatable migrations, as Flyway has them).
///
/// A session-level advisory lock serialises concurrent `discern migrate` runs (two replicas
/// starting together).
public enum Migrator {
    /// The newest migration this binary carries: the schema version `migrate` brings a database to.
    public static var schemaVersion: Int { (try? Schema.migrations().last?.version) ?? nil ?? Schema.baselineVersion }

    /// The oldest schema `migrate` upgrades from (sql/schema.sql stands for all before it).
    public static var oldestMigratable: Int { Schema.baselineVersion }

    /// Arbitrary but fixed: the advisory lock key discern's migrations hold.
    static let lockKey: Int64 = 0x6469_7363_6572_6E00

    /// What one `migrate` changed: the versions it applied and the function, view and grants
    /// files it applied again.
    public struct Applied: Sendable, Equatable {
        public var versions: [Int] = []
        public var files: [String] = []
        public var isEmpty: Bool { versions.isEmpty && files.isEmpty }

        public init(versions: [Int] = [], files: [String] = []) {
            (self.versions, self.files) = (versions, files)
        }
    }

    @discardableResult
    public static func migrate(_ connection: Connection) throws -> Applied {
        let migrations = try bundledMigrations()
        // Already current: nothing to lock or create, so a role without DDL rights may run it.
        if (try? requireCurrent(connection)) != nil { return Applied() }
        try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }

        try connection.query("CREATE SCHEMA IF NOT EXISTS discern")
        try connection.query("""
            CREATE TABLE IF NOT EXISTS discern.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """)
        try connection.query("""
            CREATE TABLE IF NOT EXISTS discern.schema_repeatables (
                file text PRIMARY KEY,
                checksum text NOT NULL,
                schema_version integer NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """)
        var applied = Set(try connection.query("SELECT version FROM discern.schema_migrations").map { try $0.int("version") })
        var newlyApplied: [Int] = []
        if applied.isEmpty {
            // sql/schema.sql is what every migration this binary carries leaves (a test keeps it
            // so): it stands for all of them, recorded so an older binary finds its own too.
            let versions = Array(1...Schema.baselineVersion) + migrations.map(\.version)
            try apply("the fresh schema (sql/schema.sql)", connection) { connection in
                try connection.executeScript(Schema.freshSchema)
                try connection.query("""
                    INSERT INTO discern.schema_migrations (version, name)
                    SELECT v::integer, 'sql/schema.sql' FROM unnest($1::bigint[]) v
                    """, [versions])
            }
            applied = Set(versions)
            newlyApplied = versions
        } else if !applied.contains(Schema.baselineVersion) {
            throw QueueError(.migrationFailed, """
                this database's discern schema is at version \(applied.max() ?? 0), older than the oldest this discern upgrades \
                (\(Schema.baselineVersion)): run `discern migrate` of a release from before 2026-11-25 (commit a624b03) first, then this one
                """)
        }
        for migration in migrations where !applied.contains(migration.version) {
            try apply("migration \(migration.version) (\(migration.name))", connection) { connection in
                try connection.executeScript(migration.sql)
                try connection.query("INSERT INTO discern.schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name])
            }
            newlyApplied.append(migration.version)
        }
        let files = try applyRepeatables(connection, newest: migrations.last?.version ?? Schema.baselineVersion)
        return Applied(versions: newlyApplied, files: files)
    }

    /// Throws `schemaNotMigrated` unless every migration this binary carries is applied and
    /// every function, view and grants file is as it has them (or as a newer binary left them):
    /// a worker checks once at start, so an unmigrated database is one clear line, not a
    /// failing loop. A newer schema (a newer binary migrated) is fine: migrations only add.
    public static func requireCurrent(_ connection: Connection) throws {
        let known = [Schema.baselineVersion] + (try bundledMigrations()).map(\.version)
        let present = try connection.query("""
            SELECT to_regclass('discern.schema_migrations') IS NOT NULL AND to_regclass('discern.schema_repeatables') IS NOT NULL AS present
            """).first?.bool("present") ?? false
        guard present else {
            throw QueueError(.schemaNotMigrated, "the database has no discern schema, or one older than this discern: run `discern migrate` (as the role that owns the database) first")
        }
        let applied = Set(try connection.query("SELECT version FROM discern.schema_migrations").map { try $0.int("version") })
        let missing = known.filter { !applied.contains($0) }
        guard missing.isEmpty else {
            throw QueueError(.schemaNotMigrated, "the discern schema lacks migration(s) \(missing.map(String.init).joined(separator: ", ")) this binary needs: run `discern migrate` first")
        }
        let stale = try pendingRepeatables(connection, newest: known.max() ?? Schema.baselineVersion)
        guard stale.isEmpty else {
            throw QueueError(.schemaNotMigrated, "the discern schema's \(stale.prefix(3).map(\.path).joined(separator: ", "))\(stale.count > 3 ? " and \(stale.count - 3) more" : "") differ from this binary's: run `discern migrate` first")
        }
    }

    private static func bundledMigrations() throws -> [Migration] {
        do {
            return try Schema.migrations()
        } catch {
            throw QueueError(.migrationFailed, "cannot read the bundled migrations: \(error)")
        }
    }

    private static func apply(_ what: String, _ connection: Connection, _ body: (Connection) throws -> Void) throws {
        do {
            try connection.transaction(body)
        } catch {
            throw QueueError(.migrationFailed, "\(what) failed and was rolled back: \(error)")
        }
    }

    /// The functions, views and grants whose text differs from what was applied last, unless a
    /// binary with newer migrations applied them (an older binary never puts its own back).
    private static func pendingRepeatables(_ connection: Connection, newest: Int) throws -> [Repeatable] {
        let all = Schema.repeatables
        let stale = Set(try connection.query("""
            SELECT u.file FROM unnest($1::text[], $2::text[]) AS u(file, sql)
            LEFT JOIN discern.schema_repeatables r ON r.file = u.file
            WHERE r.checksum IS DISTINCT FROM md5(u.sql) AND coalesce(r.schema_version, 0) <= $3
            """, [all.map(\.path), all.map(\.sql), newest]).map { try $0.string("file") })
        return all.filter { stale.contains($0.path) }
    }

    /// Applies the changed repeatables in one transaction. Function bodies are not checked on
    /// creation (as pg_dump restores them), so a function may name a view created after it;
    /// views are taken in the order that works (one that names another waits for it).
    private static func applyRepeatables(_ connection: Connection, newest: Int) throws -> [String] {
        let pending = try pendingRepeatables(connection, newest: newest)
        guard !pending.isEmpty else { return [] }
        try apply("the functions, views and grants of sql/", connection) { connection in
            try connection.query("SET LOCAL check_function_bodies = off")
            var waiting = pending, failures: [String: String] = [:]
            while !waiting.isEmpty {
                var next: [Repeatable] = []
                for file in waiting {
                    try connection.query("SAVEPOINT repeatable")
                    do {
                        try connection.executeScript(file.sql)
                        try connection.query("RELEASE SAVEPOINT repeatable")
                    } catch {
                        try connection.query("ROLLBACK TO SAVEPOINT repeatable")
                        failures[file.path] = "\(error)"
                        next.append(file)
                    }
                }
                guard next.count < waiting.count else {
                    throw QueueError(.migrationFailed, next.map { "\($0.path): \(failures[$0.path] ?? "")" }.joined(separator: "; "))
                }
                waiting = next
            }
            try connection.query("""
                INSERT INTO discern.schema_repeatables (file, checksum, schema_version)
                SELECT u.file, md5(u.sql), $3 FROM unnest($1::text[], $2::text[]) AS u(file, sql)
                ON CONFLICT (file) DO UPDATE SET checksum = excluded.checksum, schema_version = excluded.schema_version, applied_at = now()
                """, [pending.map(\.path), pending.map(\.sql), newest])
        }
        return pending.map(\.path)
    }
}
