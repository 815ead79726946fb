import AnalysisModel
import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

@Suite("Batched completion", .integrationTimeLimit)
struct CompletionTests {
    static let awkward = "plate \"AB\\12\"\n\ttab \u{01} ü 🚚 {x,y} NULL"

    static func result(category: String?, confidence: Double?, identifiers: [String], raw: String, quality: Int?) -> JobResult {
        JobResult(
            analysis: .init(
                category: category, confidence: confidence, textIdentifiers: identifiers, outcome: "identified",
                subjectID: "s-1", detailsJSON: #"{"top": [1, 2]}"#, apiCalls: 3, rawResponseJSON: raw),
            preparation: .init(
                originalBytes: 12_000_000_000, originalWidth: 8000, originalHeight: 6000, originalFormat: "jpeg",
                sentBytes: 9_000_000, sentWidth: 4096, sentHeight: 3072, sentFormat: "jpeg", jpegQuality: quality,
                encodeCount: 2, passedThrough: false, milliseconds: 812.5),
            analyzeMilliseconds: 604.25)
    }

    @Test("awkward values survive one batched completion: quotes, escapes, NUL, empty and odd arrays, NaN, big numbers")
    func roundTrip() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let completed = try await database.withConnection { connection -> Set<Int> in
                try JobQueue.enqueue(connection, paths: ["/a.jpg", "/b.jpg", "/c.jpg"])
                let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 3, leaseSeconds: 60)
                let results = [
                    Self.result(
                        category: Self.awkward + "\0", confidence: 0.25, identifiers: [Self.awkward, "a,b", "{x}", "NULL", ""],
                        raw: #"{"nested": {"q": "\"x\""}}"#, quality: 85),
                    Self.result(category: nil, confidence: .nan, identifiers: [], raw: "not json", quality: nil),
                    Self.result(category: "", confidence: nil, identifiers: ["only"], raw: "[1, 2]", quality: 40)
                ]
                return try JobQueue.complete(connection, workerID: "w", results: zip(jobs, results).map { ($0.id, $1) })
            }
            #expect(completed.count == 3)

            let rows = Array(
                try await database.rows(
                    """
                    SELECT category, confidence, text_identifiers::text AS ids, cardinality(text_identifiers) AS n,
                           raw_response::text AS raw, details->'top'->>1 AS second, api_calls, original_bytes, sent_width,
                           jpeg_quality, encode_count, passed_through, prepare_ms, analyze_ms
                    FROM discern.results ORDER BY job_id
                    """))
            #expect(rows.count == 3)
            #expect(try rows[0].optionalString("category") == Self.awkward, "NUL is dropped, everything else kept")
            #expect(try rows[0].optionalDouble("confidence") == 0.25)
            #expect(try rows[0].int("n") == 5)
            #expect(try rows[0].string("raw") == #"{"nested": {"q": "\"x\""}}"#)
            #expect(try rows[0].string("second") == "2")
            #expect(try rows[0].int("api_calls") == 3 && rows[0].int("original_bytes") == 12_000_000_000)
            #expect(try rows[0].int("sent_width") == 4096 && rows[0].int("jpeg_quality") == 85 && rows[0].int("encode_count") == 2)
            #expect(try rows[0].string("passed_through") == "f")
            #expect(try rows[0].optionalDouble("prepare_ms") == 812.5 && rows[0].optionalDouble("analyze_ms") == 604.25)

            #expect(try rows[1].optionalString("category") == nil)
            #expect(try rows[1].optionalDouble("confidence") == nil, "NaN is stored as NULL")
            #expect(try rows[1].string("ids") == "{}")
            #expect(try rows[1].string("raw") == #""not json""#)
            #expect(try rows[1].optionalString("jpeg_quality") == nil)

            #expect(try rows[2].optionalString("category") == "")
            #expect(try rows[2].string("raw") == "[1, 2]")

            let identifiers = try await database.rows("SELECT unnest(text_identifiers) AS id FROM discern.results ORDER BY job_id LIMIT 5")
            #expect(try identifiers.map { try $0.string("id") } == [Self.awkward, "a,b", "{x}", "NULL", ""])
        }
    }

    @Test("binary arrays work in plain statements too, NULL elements included")
    func binaryParameters() async throws {
        try await TestDatabase.with { conninfo in
            let row = try #require(
                try await Database(conninfo: conninfo).withConnection { connection in
                    try connection.query(
                        """
                        SELECT cardinality($1::bigint[]) AS n, array_position($1::bigint[], NULL) AS null_at,
                               ($2::text[])[2] AS second, ($3::jsonb[])[1]->>'k' AS k, ($4::double precision[])[1] AS d
                        """,
                        [
                            BinaryArray<Int>([1, nil, 3]), BinaryArray(["a", "b\"c"]), BinaryArray([JSONText(#"{"k": "v"}"#)]),
                            BinaryArray<Double>([-0.5])
                        ])
                }.first)
            #expect(try row.int("n") == 3 && row.int("null_at") == 2)
            #expect(try row.string("second") == "b\"c" && row.string("k") == "v" && row.optionalDouble("d") == -0.5)
        }
    }

    @Test("a prepared statement the server dropped (DEALLOCATE ALL, a pooler's reset) is prepared again")
    func preparedAgain() async throws {
        try await TestDatabase.with { conninfo in
            let values = try await Database(conninfo: conninfo).withConnection { connection -> [Int] in
                let first = try connection.query(prepared: "SELECT $1::int + 1 AS n", [1]).first?.int("n") ?? 0
                let other = try connection.query(prepared: "SELECT $1::int + 2 AS n", [1]).first?.int("n") ?? 0
                try connection.query("DEALLOCATE ALL")
                let again = try connection.query(prepared: "SELECT $1::int + 1 AS n", [1]).first?.int("n") ?? 0
                let otherAgain = try connection.query(prepared: "SELECT $1::int + 2 AS n", [1]).first?.int("n") ?? 0
                return [first, other, again, otherAgain]
            }
            #expect(values == [2, 3, 2, 3], "each text keeps its own statement after preparing again")
        }
    }
}
