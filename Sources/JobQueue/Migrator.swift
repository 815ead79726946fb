import Postgres
import SQLSchema

/// Applies the migrations in sql/migrations, each once, in order.
///
/// A session-level advisory lock serialises concurrent `discern migrate` runs (two replicas
/// starting together); each migration and its bookkeeping row commit in one transaction.
public enum Migrator {
    /// Arbitrary but fixed: the advisory lock key discern's migrations hold.
    static let lockKey: Int64 = 0x6469_7363_6572_6E00

    /// Returns the versions applied by this call (empty when the schema was already current).
    @discardableResult
    public static func migrate(_ connection: Connection) throws -> [Int] {
        let migrations: [Migration]
        do {
            migrations = try Schema.migrations()
        } catch {
            throw QueueError(.migrationFailed, "cannot read the bundled migrations: \(error)")
        }
        // Already current: nothing to lock or create, so a role without DDL rights may run it.
        if (try? requireCurrent(connection)) != nil { return [] }
        try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }

        try connection.query("CREATE SCHEMA IF NOT EXISTS discern")
        try connection.query("""
            CREATE TABLE IF NOT EXISTS discern.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """)
        let applied = Set(try connection.query("SELECT version FROM discern.schema_migrations").map { try $0.int("version") })

        var newlyApplied: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            do {
                try connection.transaction { connection in
                    try connection.executeScript(migration.sql)
                    try connection.query(
                        "INSERT INTO discern.schema_migrations (version, name) VALUES ($1, $2)",
                        [migration.version, migration.name])
                }
            } catch {
                throw QueueError(.migrationFailed, "migration \(migration.version) (\(migration.name)) failed and was rolled back: \(error)")
            }
            newlyApplied.append(migration.version)
        }
        return newlyApplied
    }

    /// Throws `schemaNotMigrated` unless every migration this binary knows is applied: a worker
    /// checks once at start, so an unmigrated database is one clear line, not a failing loop.
    /// A newer schema (a newer binary migrated) is fine: migrations only add.
    public static func requireCurrent(_ connection: Connection) throws {
        let known = try Schema.migrations().map(\.version)
        let present = try connection.query("SELECT to_regclass('discern.schema_migrations') IS NOT NULL AS present").first?.bool("present") ?? false
        guard present else {
            throw QueueError(.schemaNotMigrated, "the database has no discern schema: run `discern migrate` (as the role that owns the database) first")
        }
        let applied = Set(try connection.query("SELECT version FROM discern.schema_migrations").map { try $0.int("version") })
        let missing = known.filter { !applied.contains($0) }
        guard missing.isEmpty else {
            throw QueueError(.schemaNotMigrated, "the discern schema lacks migration(s) \(missing.map(String.init).joined(separator: ", ")) this binary needs: run `discern migrate` first")
        }
    }
}
