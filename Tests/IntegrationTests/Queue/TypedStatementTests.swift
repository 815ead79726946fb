import Foundation
import JobQueue
import Postgres
import SQLSchema
import TestFixtures
import Testing

/// Typed statements (docs/sql.md): the bundler turns a statement's declared parameters and rows
/// into a Swift type, and refuses, at build time, a declaration that does not match its text.
@Suite("Typed statements")
struct TypedStatementTests {
    /// The bundler the build ran, beside the test bundle.
    static var bundler: String {
        get throws {
            let url = try WorkerProcess.binary.deletingLastPathComponent().appendingPathComponent("SQLBundler")
            guard FileManager.default.isExecutableFile(atPath: url.path) else { throw TestSetupError("\(url.path) is missing") }
            return url.path
        }
    }

    /// Bundles one queries file holding `statement`; returns the exit status and what it said.
    static func bundle(_ statement: String) async throws -> (status: Int32, output: String) {
        try await TestFolder.with { folder in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("queries"), withIntermediateDirectories: true)
            try statement.write(to: folder.appendingPathComponent("queries/sample.sql"), atomically: true, encoding: .utf8)
            return try await Subprocess.runWithStatus(
                try bundler, [folder.path, folder.appendingPathComponent("out.swift").path, "queries/sample.sql"])
        }
    }

    @Test(
        "a parameter used and not declared, declared and not used, a type it does not map or a malformed line fails the build, naming the statement")
    func mismatchesFailTheBuild() async throws {
        let cases: [(String, String)] = [
            ("-- name: pick\n-- $1 job: bigint\nSELECT $1, $2;", "pick uses $[1, 2] but declares $[1]"),
            ("-- name: pick\n-- $1 job: bigint\n-- $2 worker: text\nSELECT $1;", "pick uses $[1] but declares $[1, 2]"),
            ("-- name: pick\n-- $1 at: interval\nSELECT $1;", "pick: no Swift type for interval"),
            ("-- name: pick\n-- $1 job bigint\nSELECT $1;", "pick: a parameter is declared `$N name: type`"),
            ("-- name: pick\n-- returns: id bigint[]\nSELECT '{}'::bigint[] AS id;", "pick: a returned column is written"),
            // A fragment's text is the statement's: the `$2` it brings must be declared too.
            (
                "-- fragment: guard\nAND worker = $2\n\n-- name: pick\n-- $1 job: bigint\nSELECT $1 WHERE true {{guard}};",
                "pick uses $[1, 2] but declares $[1]"
            ),
            ("-- fragment: Guard\ntrue\n", "'Guard' is not a fragment name")
        ]
        for (source, expected) in cases {
            let (status, output) = try await Self.bundle(source)
            #expect(status == 1 && output.contains("queries/sample.sql: \(expected)"), "\(source): \(status) \(output)")
        }
        let (status, output) = try await Self.bundle(
            "-- name: pick\n-- $1 job: bigint\n-- returns: id bigint, note text?\nSELECT $1 AS id, NULL AS note;")
        #expect(status == 0, "\(output)")
        let fragment = try await Self.bundle("-- fragment: the_id\n$1 AS id\n\n-- name: pick\n-- $1 job: bigint\nSELECT {{the_id}};")
        #expect(fragment.status == 0, "\(fragment.output)")
    }

    @Test("a typed statement runs with its fields as parameters and reads its rows as fields, NULL as nil")
    func roundTrip() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/photos/typed.jpg"])
                let job = try #require(
                    try connection.run(
                        Queries.Jobs.Claim(worker: "w", wanted: 1, leaseSeconds: 60, services: ["discerner"], holdingNothing: false, oldestFirst: 0)
                    ).first)
                #expect(job.imagePath == "/photos/typed.jpg" && job.batchId == nil && job.attempts == 1 && !job.probe)
                let facts = try #require(try connection.run(Queries.Jobs.FailureFacts(job: job.id, worker: "w")).first)
                #expect(facts.handBacks == 0 && facts.service == "discerner" && !facts.failingSince.isEmpty)
                #expect(try connection.run(Queries.Jobs.FailureFacts(job: job.id, worker: "another")).isEmpty, "another worker's job has no facts")
                let round = try #require(
                    try connection.run(Queries.Jobs.Rescue(rescuer: nil, crashedKind: "worker_crashed", expiredKind: "lease_expired")).first)
                #expect(round.rescued == 0 && round.awaitedSeconds == nil)
            }
        }
    }
}
