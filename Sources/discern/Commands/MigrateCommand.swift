import ArgumentParser
import JobQueue
import Postgres

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or upgrade the discern schema (safe to run again, and from several machines at once).")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let applied = try await Database(conninfo: database.conninfo).withConnection { try Migrator.migrate($0) }
        if applied.isEmpty { return print("schema is up to date") }
        if !applied.versions.isEmpty { print("applied migrations: \(applied.versions.map(String.init).joined(separator: ", "))") }
        if !applied.files.isEmpty { print("applied \(applied.files.count) function, view and grants file(s) of sql/") }
    }
}
