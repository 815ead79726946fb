import Foundation
import SampleImages
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing
import Worker

/// A job in PostgreSQL becomes a result row: real PostgreSQL, libvips, libcurl and the simulator.
@Suite("Worker end to end", .integrationTimeLimit)
struct EndToEndTests {
    @Test("jobs from the CLI path, discern.enqueue() and a plain INSERT all end with one result each")
    func everyWayInYieldsAResult() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let paths = try (1...3).map { try folder.write(SampleImages.photo(width: 640, height: 480, seed: $0), as: "photo-\($0).jpg") }
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    try JobQueue.enqueue(connection, paths: [paths[0]], batch: "e2e")
                    try connection.execute("SELECT discern.enqueue(\(paths[1]))")
                    try connection.execute("INSERT INTO discern.jobs (image_path) VALUES (\(paths[2]))")
                }
                let summary = try await TestSimulator.with { try await TestWorker.drain(conninfo, simulator: $0) }
                #expect(summary.succeeded == 3)
                #expect(summary.dead == 0)

                let rows = try await database.rows(
                    """
                    SELECT j.state, count(r.id) AS results, max(r.operator) AS operator, max(r.confidence) AS confidence,
                           bool_and(r.passed_through) AS passed_through, max(r.raw_response->>'success') AS success
                    FROM discern.jobs j LEFT JOIN discern.results r ON r.job_id = j.id
                    GROUP BY j.id, j.state ORDER BY j.id
                    """, as: String.self, Int.self, String?.self, Double?.self, Bool.self, String.self)
                #expect(rows.count == 3)
                for (state, results, _, _, passedThrough, success) in rows {
                    #expect(state == "succeeded")
                    #expect(results == 1)
                    #expect(success == "true")
                    #expect(passedThrough, "a small JPEG goes as it is")
                }
            }
        }
    }

    @Test("an undecodable file ends dead with a message that names the file and the problem")
    func undecodableFilesEndDead() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photo = try SampleImages.photo(width: 640, height: 480, seed: 9)
                let text = try folder.write(Data("this is not an image\n".utf8), as: "notes.jpg")
                let corrupt = try folder.write(photo.prefix(20) + Data(repeating: 0x42, count: 4000), as: "corrupt.jpg")
                let empty = try folder.write(Data(), as: "empty.jpg")
                let missing = folder.appendingPathComponent("gone.jpg").path
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: [text, corrupt, empty, missing]) }

                let summary = try await TestSimulator.with { try await TestWorker.drain(conninfo, simulator: $0) }
                #expect(summary.dead == 4)

                let rows: [(imagePath: String, state: String, errorKind: String, lastError: String, attempts: Int)] = try await database.rows(
                    "SELECT image_path, state, error_kind, last_error, attempts FROM discern.jobs ORDER BY id",
                    as: String.self, String.self, String.self, String.self, Int.self)
                let byPath = Dictionary(uniqueKeysWithValues: rows.map { ($0.imagePath, $0) })
                let expectations: [(String, String, String)] = [
                    (text, "image_unsupported_format", "not an image discern accepts"),
                    (corrupt, "image_undecodable", "cannot be decoded"),
                    (empty, "image_empty", "empty"),
                    (missing, "file_not_found", "does not exist")
                ]
                for (path, kind, phrase) in expectations {
                    let (_, state, errorKind, lastError, attempts) = try #require(byPath[path])
                    #expect(state == "dead")
                    #expect(errorKind == kind)
                    #expect(lastError.contains(phrase))
                    #expect(lastError.contains(path), "the message names the file")
                    #expect(attempts == 1, "a permanent failure is not retried")
                }
                #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == 0)
            }
        }
    }

    @Test("an image over 10 MB is sent under 10 MB")
    func oversizedImageIsShrunk() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let large = try SampleImages.noise(width: 3000, height: 2400)
                #expect(large.count > 10_000_000, "the fixture must be over budget")
                let path = try folder.write(large, as: "large.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: [path]) }

                let summary = try await TestSimulator.with { try await TestWorker.drain(conninfo, simulator: $0) }
                #expect(summary.succeeded == 1)
                let (originalBytes, sentBytes, sentFormat, passedThrough, encodeCount) = try #require(
                    try await database.rows(
                        "SELECT original_bytes, sent_bytes, sent_format, passed_through, encode_count FROM discern.results",
                        as: Int.self, Int.self, String.self, Bool.self, Int.self
                    ).first)
                #expect(originalBytes == large.count)
                #expect(sentBytes <= 10_000_000)
                #expect(sentFormat == "jpeg")
                #expect(!passedThrough)
                #expect(encodeCount >= 1)
            }
        }
    }

    @Test("no credential or presigned-URL signature reaches the logs or the jobs table")
    func secretsStayOut() async throws {
        let logs = CapturedLogs()
        // Every presigned URL is already expired when used, so the failure path runs too.
        var configuration = SimulatorConfiguration(secretAccessKey: "super-secret-simulator-key")
        configuration.faults.expiredUploadURLRate = 1
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let path = try folder.write(SampleImages.photo(width: 320, height: 240, seed: 1), as: "photo.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try $0.execute("SELECT discern.enqueue(\(path), max_attempts => 1)") }

                try await TestSimulator.with(configuration) { simulator in
                    try await TestWorker.drain(conninfo, simulator: simulator, logger: logs.logger())
                }
                let (state, errorKind, lastError, history) = try #require(
                    try await database.rows(
                        "SELECT state, error_kind, last_error, error_history::text AS history FROM discern.jobs",
                        as: String.self, String.self, String.self, String.self
                    ).first)
                #expect(state == "dead")
                #expect(errorKind == "upload_url_expired")
                let stored = lastError + history
                for text in [logs.text, stored] {
                    #expect(!text.isEmpty)
                    for secret in ["X-Amz-Signature=", "X-Amz-Credential=", "super-secret-simulator-key", configuration.accessKeyID] {
                        #expect(!text.contains(secret), "found \(secret)")
                    }
                }
                #expect(logs.text.contains("upload_url_expired"))
            }
        }
    }
}
