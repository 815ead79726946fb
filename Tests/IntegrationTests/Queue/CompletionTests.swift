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

            let rows:
                [(
                    category: String?, confidence: Double?, ids: String, n: Int, raw: String, second: String, apiCalls: Int, originalBytes: Int,
                    sentWidth: Int, jpegQuality: Int?, encodeCount: Int, passedThrough: String, prepareMs: Double?, analyzeMs: Double?
                )] = try await database.rows(
                    """
                    SELECT category, confidence, text_identifiers::text AS ids, cardinality(text_identifiers) AS n,
                           raw_response::text AS raw, details->'top'->>1 AS second, api_calls, original_bytes, sent_width,
                           jpeg_quality, encode_count, passed_through, prepare_ms, analyze_ms
                    FROM discern.results ORDER BY job_id
                    """,
                    as: String?.self, Double?.self, String.self, Int.self, String.self, String.self, Int.self, Int.self,
                    Int.self, Int?.self, Int.self, String.self, Double?.self, Double?.self)
            #expect(rows.count == 3)
            #expect(rows[0].category == Self.awkward, "NUL is dropped, everything else kept")
            #expect(rows[0].confidence == 0.25)
            #expect(rows[0].n == 5)
            #expect(rows[0].raw == #"{"nested": {"q": "\"x\""}}"#)
            #expect(rows[0].second == "2")
            #expect(rows[0].apiCalls == 3 && rows[0].originalBytes == 12_000_000_000)
            #expect(rows[0].sentWidth == 4096 && rows[0].jpegQuality == 85 && rows[0].encodeCount == 2)
            #expect(rows[0].passedThrough == "f")
            #expect(rows[0].prepareMs == 812.5 && rows[0].analyzeMs == 604.25)

            #expect(rows[1].category == nil)
            #expect(rows[1].confidence == nil, "NaN is stored as NULL")
            #expect(rows[1].ids == "{}")
            #expect(rows[1].raw == #""not json""#)
            #expect(rows[1].jpegQuality == nil)

            #expect(rows[2].category == "")
            #expect(rows[2].raw == "[1, 2]")

            let identifiers = try await database.rows(
                "SELECT unnest(text_identifiers) AS id FROM discern.results ORDER BY job_id LIMIT 5", as: String.self)
            #expect(identifiers == [Self.awkward, "a,b", "{x}", "NULL", ""])
        }
    }

    @Test("binary arrays work in plain statements too, NULL elements included")
    func binaryParameters() async throws {
        try await TestDatabase.with { conninfo in
            let numbers = BinaryArray<Int>([1, nil, 3]), texts = BinaryArray(["a", "b\"c"])
            let documents = BinaryArray([JSONText(#"{"k": "v"}"#)]), doubles = BinaryArray<Double>([-0.5])
            let (n, nullAt, second, k, d) = try #require(
                try await Database(conninfo: conninfo).withConnection { connection in
                    // `numbers`, used twice, is sent twice (as $1 and $2).
                    try connection.rows(
                        """
                        SELECT cardinality(\(numbers)::bigint[]) AS n, array_position(\(numbers)::bigint[], NULL) AS null_at,
                               (\(texts)::text[])[2] AS second, (\(documents)::jsonb[])[1]->>'k' AS k, (\(doubles)::double precision[])[1] AS d
                        """,
                        as: Int.self, Int.self, String.self, String.self, Double?.self)
                }.first)
            #expect(n == 3 && nullAt == 2)
            #expect(second == "b\"c" && k == "v" && d == -0.5)
        }
    }

    @Test("a prepared statement the server dropped (DEALLOCATE ALL, a pooler's reset) is prepared again")
    func preparedAgain() async throws {
        try await TestDatabase.with { conninfo in
            let values = try await Database(conninfo: conninfo).withConnection { connection -> [Int] in
                let first = try connection.run(PlusOne(n: 1)).first ?? 0
                let other = try connection.run(PlusTwo(n: 1)).first ?? 0
                try connection.execute("DEALLOCATE ALL")
                let again = try connection.run(PlusOne(n: 1)).first ?? 0
                let otherAgain = try connection.run(PlusTwo(n: 1)).first ?? 0
                return [first, other, again, otherAgain]
            }
            #expect(values == [2, 3, 2, 3], "each text keeps its own statement after preparing again")
        }
    }
}

/// Two statements sent the way those of sql/queries/ are (`TypedStatement`: prepared once per
/// session), each its own text.
private struct PlusOne: TypedStatement {
    static var text: String { "SELECT $1::int + 1 AS n" }
    let n: Int
    var parameters: [(any PostgresEncodable)?] { [n] }
    static func output(_ row: Row) throws -> Int { try row.decode(Int.self) }
}

private struct PlusTwo: TypedStatement {
    static var text: String { "SELECT $1::int + 2 AS n" }
    let n: Int
    var parameters: [(any PostgresEncodable)?] { [n] }
    static func output(_ row: Row) throws -> Int { try row.decode(Int.self) }
}
