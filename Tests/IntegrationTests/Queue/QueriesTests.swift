import Foundation
import Postgres
import SQLSchema
import TestFixtures
import Testing

@testable import JobQueue
@testable import QueueReads

/// sql/queries/ is the one home of the statements discern sends (docs/sql.md, "Where the
/// statements live"): each one is checked against the schema, none is written in Swift, and the
/// numbers both sides use come from `QueueConstants`.
@Suite("Queries", .integrationTimeLimit)
struct QueriesTests {
    static let repository = ChaosJobs.repository

    /// The statements whose column lists or rows Swift fills in, filled as the code sends them.
    static let filled: [(name: String, text: String)] = [
        ("migrations.recordMigrations", Queries.fill(Queries.Migrations.recordMigrations, ["rows": "(999, 'x', false)"])),
        ("migrations.recordRepeatables", Queries.fill(Queries.Migrations.recordRepeatables, ["rows": "('x.sql', md5('x'), 1)"]))
    ]

    /// What PREPARE cannot take (it takes SELECT, INSERT, UPDATE, DELETE, MERGE and VALUES): the
    /// migration script's settings and bootstrap, and the enqueue's staging table and COPY,
    /// which the migration and enqueue tests run.
    static let utility: Set = [
        "migrations.bootstrap", "migrations.uncheckedFunctionBodies", "migrations.scriptLockTimeout", "enqueue.createStaging",
        "enqueue.copyStaging"
    ]

    @Test("every statement of sql/queries parses and plans against a migrated database, without running")
    func everyStatementPrepares() async throws {
        let named = Queries.all.map { (name: "\($0.file.dropFirst("queries/".count).dropLast(".sql".count)).\($0.name)", text: $0.text) }
        let open = named.filter { !$0.text.contains("{{") }
        #expect(Set(named.map(\.name)).isSuperset(of: Self.utility), "a statement this test skips is gone")
        #expect(
            named.count - open.count == Set(Self.filled.map { $0.name.split(separator: " ")[0] }).count,
            "a statement with a placeholder this test does not fill")
        let statements = open.filter { !Self.utility.contains($0.name) } + Self.filled
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-queries")
            let failures = try await database.withConnection { connection in
                // The enqueue's staging table, which lives only in the enqueue's transaction.
                try connection.execute("BEGIN")
                defer { _ = try? connection.execute("ROLLBACK") }
                try connection.executeScript(Queries.Enqueue.createStaging)
                var failures: [String] = []
                for (index, (name, text)) in statements.enumerated() {
                    do {
                        try connection.execute("SAVEPOINT checking")
                        // Sent as text: the statement's own $n are PREPARE's, not parameters.
                        try connection.executeScript("PREPARE checked_\(index) AS \(text)")
                    } catch let error as PostgresError {
                        failures.append("\(name): \(error.message)")
                        try connection.execute("ROLLBACK TO SAVEPOINT checking")
                    }
                }
                return failures
            }
            #expect(failures.isEmpty, "statements the schema refuses:\n\(failures.joined(separator: "\n"))")
        }
    }

    @Test("no SQL statement is written in Sources/: the Postgres driver's session and transaction control aside")
    func noStatementInSwift() throws {
        let statement = try Regex(
            #"\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+discern|DELETE\s+FROM|WITH\s+\w+\s+AS\s+\(|CREATE\s+|ALTER\s+|DROP\s+)"#)
        var found: [String] = []
        let sources = Self.repository.appendingPathComponent("Sources")
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        for case let url as URL in walker?.allObjects ?? [] where url.pathExtension == "swift" {
            let path = String(url.path.dropFirst(Self.repository.path.count + 1))
            guard !path.hasPrefix("Sources/Postgres/") else { continue }
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.contains(statement) { found.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces).prefix(100))") }
            }
        }
        #expect(found.isEmpty, "SQL written in Swift; it belongs in sql/queries/:\n\(found.joined(separator: "\n"))")
    }

    @Test("the literal 3 of discern.claim and of the jobs_claimable_alone index is QueueConstants.crashesBeforeAlone")
    func crashesBeforeAloneAgrees() throws {
        let sql = Self.repository.appendingPathComponent("sql")
        let claim = try String(contentsOf: sql.appendingPathComponent("functions/claim.sql"), encoding: .utf8)
        let schema = try String(contentsOf: sql.appendingPathComponent("schema.sql"), encoding: .utf8)
        let literals = try Regex(#"shared_crashes\s*(>=|<)\s*(\d+)"#)
        let inClaim = claim.matches(of: literals).map { String($0.output[2].substring ?? "") }
        #expect(inClaim.count >= 4 && inClaim.allSatisfy { $0 == String(QueueConstants.crashesBeforeAlone) }, "claim.sql: \(inClaim)")
        let index = try #require(schema.split(separator: "\n").first { $0.contains("INDEX jobs_claimable_alone") })
        #expect(index.contains("(shared_crashes >= \(QueueConstants.crashesBeforeAlone))"), "\(index)")
    }

    @Test("the literal 30000 of discern.claim, discern.reanalyse and the jobs_claimable_oldest_ordinary index is QueueConstants.backgroundPriority")
    func backgroundPriorityAgrees() throws {
        let sql = Self.repository.appendingPathComponent("sql")
        let band = String(QueueConstants.backgroundPriority)
        let claim = try String(contentsOf: sql.appendingPathComponent("functions/claim.sql"), encoding: .utf8)
        let inClaim = claim.matches(of: try Regex(#"priority < (\d+)"#)).map { String($0.output[1].substring ?? "") }
        #expect(inClaim.count == 2 && inClaim.allSatisfy { $0 == band }, "claim.sql: \(inClaim)")
        let reanalyse = try String(contentsOf: sql.appendingPathComponent("functions/reanalyse.sql"), encoding: .utf8)
        #expect(reanalyse.contains("priority        smallint DEFAULT \(band)"))
        let schema = try String(contentsOf: sql.appendingPathComponent("schema.sql"), encoding: .utf8)
        let index = try #require(schema.split(separator: "\n").first { $0.contains("INDEX jobs_claimable_oldest_ordinary") })
        #expect(index.contains("(priority < \(band))"), "\(index)")
    }
}
