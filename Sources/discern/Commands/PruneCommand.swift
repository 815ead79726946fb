import ArgumentParser
import Postgres

struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete finished jobs (succeeded, dead, cancelled) older than N days. Results are kept.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Delete jobs that finished more than this many days ago.")
    var days: Int = 30

    @Option(help: "Jobs deleted per transaction (short locks, steady progress).")
    var batchSize: Int = 10_000

    func validate() throws {
        guard (0...36_500).contains(days) else { throw ValidationError("--days must be from 0 to 36500") }
        guard (1...1_000_000).contains(batchSize) else { throw ValidationError("--batch-size must be from 1 to 1000000") }
    }

    func run() async throws {
        guard days >= 0, batchSize > 0 else { throw ValidationError("--days must be 0 or more and --batch-size positive") }
        let db = Database(conninfo: database.conninfo)
        let interval = "\(days) days", batchSize = self.batchSize
        var total = 0
        while true {
            let deleted = try await db.withConnection { connection in
                try connection.query("SELECT discern.prune($1::interval, $2) AS deleted", [interval, batchSize]).first?.int("deleted") ?? 0
            }
            total += deleted
            if deleted < batchSize { break }
        }
        print("pruned \(total) finished job(s) older than \(days) day(s); their results are kept")
    }
}
