import ArgumentParser
import ServiceClients
import JobQueue
import Postgres

struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract:
            "Delete finished jobs (succeeded, dead, cancelled) older than N days; with --results-days, results too; and apply each service's retention.",
        discussion: """
            Deletes in chunks, one short transaction each, skipping any row that is locked: workers never wait \
            for it. Results are kept unless --results-days is given or a service's retention says otherwise \
            (discern.retention: raw answers of face and liveness services dropped after 30 days by default, the \
            results' typed columns kept); dashboards' counts (the roll-ups) keep them either way.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Delete jobs that finished more than this many days ago.")
    var days: Int = 30

    @Option(help: "Also delete results (with their entities and corrections) created more than this many days ago. Default: keep results.")
    var resultsDays: Int?

    @Option(help: "Rows deleted per transaction (short locks, steady progress).")
    var batchSize: Int = 10_000

    @Option(
        help:
            "After each chunk, pause this many times as long as the chunk took: 1 (the default) keeps prune busy half the time, leaving the database to the workers the other half; 0 runs flat out."
    )
    var pauseFactor: Double = 1

    func validate() throws {
        guard (0...36_500).contains(days) else { throw ValidationError("--days must be from 0 to 36500") }
        if let resultsDays, !(0...36_500).contains(resultsDays) { throw ValidationError("--results-days must be from 0 to 36500") }
        guard (1...1_000_000).contains(batchSize) else { throw ValidationError("--batch-size must be from 1 to 1000000") }
        guard pauseFactor.isFinite, (0...100).contains(pauseFactor) else { throw ValidationError("--pause-factor must be from 0 to 100") }
    }

    func run() async throws {
        let db = Database(conninfo: database.conninfo, name: "discern-prune")
        // Results first: a job pruned after its result costs one row; before, its result is
        // rewritten (job_id set to NULL) and then deleted.
        var results = 0
        if let resultsDays {
            results = try await repeatUntilDone(db, .results, days: resultsDays)
        }
        let jobs = try await repeatUntilDone(db, .jobs, days: days)
        // Each service's own retention (discern.retention): results first, then raw answers.
        var retained: [String] = []
        for rule in try await db.withConnection({ try Pruning.retention($0, services: Services.names) }) {
            if let days = rule.resultsDays {
                let deleted = try await repeatUntilDone(db, .serviceResults(service: rule.service), days: days)
                if deleted > 0 { retained.append("\(deleted) \(rule.service) result(s) older than \(days) day(s) deleted") }
            }
            if let days = rule.rawResponseDays {
                let redacted = try await repeatUntilDone(db, .rawResponses(service: rule.service), days: days)
                if redacted > 0 { retained.append("\(redacted) \(rule.service) raw answer(s) older than \(days) day(s) dropped") }
            }
        }
        try await db.withConnection { try Rollups.rollUp($0) }
        print(
            "pruned \(jobs) finished job(s) older than \(days) day(s)"
                + (resultsDays.map { " and \(results) result(s) older than \($0) day(s)" } ?? "; their results are kept")
                + (retained.isEmpty ? "" : "; retention: " + retained.joined(separator: ", ")))
    }

    /// Calls one prune function until a call deletes less than a chunk. A lock wait cut short by
    /// the function's lock_timeout (SQLSTATE 55P03) is tried again after a pause, 30 times at
    /// most. Between chunks it pauses `pauseFactor` times as long as the chunk took.
    func repeatUntilDone(_ db: Database, _ target: Pruning.Target, days: Int) async throws -> Int {
        var total = 0, timeouts = 0
        let clock = ContinuousClock()
        while true {
            do {
                let started = clock.now
                let chunk = batchSize
                let deleted = try await db.withConnection { try Pruning.chunk($0, target, olderThanDays: days, chunk: chunk) }
                total += deleted
                if deleted < batchSize { return total }
                if pauseFactor > 0 { try await Task.sleep(for: (clock.now - started) * pauseFactor) }
            } catch let error as PostgresError where error.sqlState == "55P03" && timeouts < 30 {
                timeouts += 1
                try await Task.sleep(for: .seconds(2))
            }
        }
    }
}
