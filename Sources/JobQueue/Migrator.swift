import Foundation
import Postgres
import SQLSchema

/// Brings a database to the schema this binary carries (docs/sql.md), by the steps of its
/// `MigrationPlan`: a new database gets sql/schema.sql; an existing one the numbered migrations
/// it lacks, in order; then every function, view and grants file whose text changed (repeatable
/// migrations, as Flyway has them). Each step is one transaction.
///
/// Beside live workers (docs/operations.md, "Upgrades"): a session-level advisory lock
/// serialises concurrent `discern migrate` runs; each step waits at most `lockTimeoutSeconds`
/// for a lock (a worker's transaction on a table it alters) and is tried again after a pause,
/// so migrating never queues the workers behind it for long; a deadlock is tried again too.
public enum Migrator {
    /// Arbitrary but fixed: the advisory lock key discern's migrations hold.
    static let lockKey = QueueConstants.migrationLockKey
    /// How long a step waits for a lock before it lets go and tries again.
    static let lockTimeoutSeconds = QueueConstants.migrationLockTimeoutSeconds
    /// Tries of a step that met a lock or a deadlock: about two minutes of live traffic.
    static let stepAttempts = 20

    /// The newest migration this binary carries: the schema version `migrate` brings a database to.
    public static var schemaVersion: Int { (try? bundledMigrations().last?.version) ?? nil ?? Schema.baselineVersion }

    /// The oldest schema `migrate` upgrades from (sql/schema.sql stands for all before it).
    public static var oldestMigratable: Int { Schema.baselineVersion }

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

    /// - Parameter waiting: told each time a step let go of a lock and waits to try again.
    @discardableResult
    public static func migrate(_ connection: Connection, waiting: (String) -> Void = { _ in }) throws -> Applied {
        // Already current: nothing to lock or create, so a role without DDL rights may run it.
        if (try? requireCurrent(connection)) != nil { return Applied() }
        try connection.execute(Queries.Migrations.Lock(key: Int(lockKey)))
        defer { _ = try? connection.execute(Queries.Migrations.Unlock(key: Int(lockKey))) }
        try run(MigrationPlan.bootstrap, connection, waiting: waiting)
        let plan = try MigrationPlan.read(connection)
        for step in plan.steps { try run(step, connection, waiting: waiting) }
        let versions =
            plan.appliedVersion == nil
            ? Array(1...Schema.baselineVersion) + plan.pendingMigrations.map(\.version)
            : plan.pendingMigrations.map(\.version)
        return Applied(versions: versions, files: plan.pendingFiles)
    }

    /// Throws `schemaNotMigrated` unless every migration this binary carries is applied and
    /// every function, view and grants file is as it has them (or as a newer binary left them),
    /// and `schemaTooNew` when a newer release applied a migration marked breaking: a worker
    /// checks once at start, so either is one clear line, not a failing loop. A newer schema
    /// without a breaking migration is fine: migrations add.
    public static func requireCurrent(_ connection: Connection) throws {
        let present = try connection.run(Queries.Migrations.BookkeepingPresent()).first?.present ?? false
        guard present else {
            throw QueueError(
                .schemaNotMigrated,
                "the database has no discern schema, or one older than this discern: run `discern migrate` (as the role that owns the database) first"
            )
        }
        let plan = try MigrationPlan.read(connection)
        if let breaking = plan.newer.first(where: \.breaking) {
            throw QueueError(
                .schemaTooNew,
                """
                the database was migrated by a newer discern whose migration \(breaking.version) (\(breaking.name)) is marked \
                breaking: this discern cannot run beside it; upgrade discern on this machine
                """)
        }
        guard plan.pendingMigrations.isEmpty else {
            throw QueueError(
                .schemaNotMigrated,
                "the discern schema lacks migration(s) \(plan.pendingMigrations.map { String($0.version) }.joined(separator: ", ")) this binary needs: run `discern migrate` first"
            )
        }
        let stale = plan.pendingFiles
        guard stale.isEmpty else {
            throw QueueError(
                .schemaNotMigrated,
                "the discern schema's \(stale.prefix(3).joined(separator: ", "))\(stale.count > 3 ? " and \(stale.count - 3) more" : "") differ from this binary's: run `discern migrate` first"
            )
        }
    }

    static func bundledMigrations() throws -> [Migration] {
        do {
            return try Schema.migrations()
        } catch {
            throw QueueError(.migrationFailed, "cannot read the bundled migrations: \(error)")
        }
    }

    /// One step in one transaction; a lock it waited too long for, or a deadlock, rolls it back,
    /// and after a pause it is tried again.
    private static func run(_ step: MigrationPlan.Step, _ connection: Connection, waiting: (String) -> Void) throws {
        var attempt = 1
        while true {
            do {
                return try connection.transaction { connection in
                    try connection.execute(Queries.Migrations.LockTimeout(timeout: "\(lockTimeoutSeconds)s"))
                    try connection.executeScript(step.sql)
                }
            } catch let error as PostgresError where (error.sqlState == "55P03" || error.sqlState == "40P01") && attempt < stepAttempts {
                waiting("\(step.title) waited \(lockTimeoutSeconds) s for a lock held by a live session (\(error.message)); trying again")
                Thread.sleep(forTimeInterval: 1)
                attempt += 1
            } catch {
                throw QueueError(.migrationFailed, "\(step.title) failed and was rolled back: \(error)")
            }
        }
    }
}
