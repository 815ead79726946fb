import ArgumentParser
import JobQueue
import SQLSchema
import Postgres

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the discern schema (safe to run again, and from several machines at once).",
        discussion: """
            Runs beside live workers of the previous release: each step waits at most a few seconds for a lock and \
            tries again. --sql prints what would be applied, for a DBA's own tools; --status says what is pending and \
            exits 1 while anything is (docs/operations.md, "Upgrades").
            """)

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print the SQL that would bring this database up to date, and apply nothing.")
    var sql = false

    @Flag(help: "Say what is applied and what is pending; exit 1 while anything is pending.")
    var status = false

    func validate() throws {
        if sql && status { throw ValidationError("--sql and --status each say something else: give one") }
    }

    func run() async throws {
        let db = Database(conninfo: database.conninfo)
        if sql { return print(try await db.withConnection { try MigrationPlan.read($0).script }, terminator: "") }
        if status { return try await printStatus(db) }
        let applied = try await db.withConnection { connection in
            try Migrator.migrate(connection) { StandardError.write("discern migrate: \($0)\n") }
        }
        if applied.isEmpty { return print("schema is up to date") }
        if !applied.versions.isEmpty { print("applied migrations: \(applied.versions.map(String.init).joined(separator: ", "))") }
        if !applied.files.isEmpty { print("applied \(applied.files.count) function, view and grants file(s) of sql/") }
    }

    private func printStatus(_ db: Database) async throws {
        let plan = try await db.withConnection { try MigrationPlan.read($0) }
        print("schema: \(plan.appliedVersion.map { "version \($0)" } ?? "none") in the database; this discern carries \(Migrator.schemaVersion)")
        for migration in plan.pendingMigrations {
            print(
                "pending: migration \(migration.version) (\(migration.name))\(migration.breaking ? ", breaking: stop the previous release's workers first" : "")"
            )
        }
        if !plan.pendingFiles.isEmpty { print("pending: \(plan.pendingFiles.count) function, view and grants file(s) of sql/") }
        for newer in plan.newer {
            print(
                "newer: migration \(newer.version) (\(newer.name)) from a newer discern\(newer.breaking ? ", breaking: this discern cannot run beside it" : "")"
            )
        }
        if plan.isEmpty { return print("up to date") }
        throw ExitCode(ExitStatus.someJobsDead)
    }
}
