import ArgumentParser
import JobQueue
import Postgres

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or upgrade the discern schema (safe to run again, and from several machines at once).")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let applied = try await Database(conninfo: database.conninfo).withConnection { try Migrator.migrate($0) }
        print(applied.isEmpty ? "schema is up to date" : "applied migrations: \(applied.map(String.init).joined(separator: ", "))")
    }
}
