import AnalysisModel
import ServiceClients
import CurlHTTP
import ErrorCodes
import Foundation
import SampleImages
import JobQueue
import Logging
import Postgres
import Simulator
import TestFixtures
import Testing

@testable import Worker

/// Answers no service should give, given anyway: none crashes a worker, poisons a batch, fills its
/// memory or leaks a signature.
@Suite("Hostile input: service answers", .integrationTimeLimit)
struct ServiceAnswerTests {
    static func jobs(_ count: Int, into conninfo: String, folder: URL, service: String = "discerner", action: String = "analyze") async throws {
        let paths = try (1...count).map { try folder.write(SampleImages.photo(width: 320, height: 240, seed: 70 + $0), as: "h\($0).jpg") }
        try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: paths, service: service, action: action) }
    }

    @Test("non-finite and huge numbers where integers belong (statusCode, rank, code) are bad answers, not traps; the worker lives on")
    func numbersThatTrapped() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await Self.jobs(1, into: conninfo, folder: folder)
                try await Self.jobs(1, into: conninfo, folder: folder, service: "landmark", action: "predict")
                try await Self.jobs(1, into: conninfo, folder: folder, service: "ooto", action: "identify")
                try await TestSimulator.with { simulator in
                    for _ in 0..<3 {
                        await simulator.scripted.enqueue(
                            "discerner.analyze", .init(status: 200, json: #"{"success": true, "analysis_result": {"statusCode": "inf", "body": {}}}"#)
                        )
                        await simulator.scripted.enqueue(
                            "landmark.predict",
                            .init(
                                status: 200,
                                json: #"{"predictions": [{"label": "st_anne", "confidence": 0.9, "rank": 1e300}], "inferenceTimeMs": "nan"}"#))
                        await simulator.scripted.enqueue(
                            "ooto.identify", .init(status: 422, json: #"{"result": {"status": "error", "code": 1e300, "info": "x"}}"#))
                    }
                    let services = try SimulatedServices.all(simulator, tries: 1)
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator, clients: services)
                    #expect(summary.succeeded + summary.dead == 3, "\(summary)")
                }
                let rows = try await Database(conninfo: conninfo).rows(
                    "SELECT backend, state, error_kind FROM discern.jobs ORDER BY backend", as: String.self, String.self, String?.self)
                let kinds = Dictionary(uniqueKeysWithValues: rows.map { backend, _, kind in (backend, kind ?? "-") })
                #expect(kinds["landmark"] == "-", "rank 1e300 reads as no rank; the prediction stands")
                #expect(kinds["ooto"] == "http_4xx", "code 1e300 is no code: an unexplained 422")
            }
        }
    }

    @Test("an answer with a NUL escape is stored cleaned; a result PostgreSQL refuses costs only its own job")
    func onePoisonedResult() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await Self.jobs(4, into: conninfo, folder: folder)
                try await TestSimulator.with { simulator in
                    await simulator.scripted.enqueue(
                        "discerner.analyze",
                        .init(
                            status: 200,
                            json: """
                                {"success": true, "analysis_result": {"statusCode": 200, "body": {"analysis_complete": true,
                                 "entities": [{"type": "commercial_vehicle:van", "operator": "UP\\u0000S", "identifiers": ["fleet:1\\u00002"], "confidence": 0.9,
                                               "properties": {"note": "nul \\u0000 here"}}],
                                 "processing_metadata": {"response_format_version": "3.0"}}}}
                                """))
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator)
                    #expect(summary.succeeded == 4)
                }
                let rows: [(operator: String?, fleetID: String?)] = try await Database(conninfo: conninfo).rows(
                    "SELECT operator, fleet_id FROM discern.results WHERE operator LIKE 'UP%'", as: String?.self, String?.self
                )
                let row = try #require(rows.first)
                #expect(row.operator == "UPS" && row.fleetID == "12")
            }
        }
        // Below the service clients: a batch whose one row PostgreSQL refuses (a CHECK it violates).
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let jobs = try await database.withConnection { connection -> [Job] in
                try JobQueue.enqueue(connection, paths: ["/a.jpg", "/b.jpg", "/c.jpg"])
                return try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 3, leaseSeconds: 60)
            }
            let writer = OutcomeWriter(database: database, workerID: "w", backoff: Backoff(), logger: Logger(label: "t"))
            func result(_ confidence: Double) -> JobResult {
                JobResult(
                    analysis: .init(confidence: confidence, rawResponseJSON: "{}"),
                    preparation: .init(
                        originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1,
                        sentWidth: 1, sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0,
                        passedThrough: true, milliseconds: 1),
                    analyzeMilliseconds: 1)
            }
            let written = await writer.complete([(jobs[0], result(0.5)), (jobs[1], result(7)), (jobs[2], result(0.25))])
            guard case .stored = written[jobs[0].id], case .refused(let failure) = written[jobs[1].id], case .stored = written[jobs[2].id] else {
                Issue.record("written: \(written)")
                return
            }
            #expect(failure.kind == .resultUnstorable && failure.message.contains("23514"))
            #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == 2)
        }
    }

    @Test("an answer larger than its cap is cut off: the transfer is aborted and the attempt retried")
    func hugeAnswer() async throws {
        try await TestSimulator.with { simulator in
            let landmark = try SimulatedServices.client(LandmarkClient.self, simulator)
            let padding = String(repeating: "x", count: 6 << 20)
            await simulator.scripted.enqueue("landmark.predict", .init(status: 200, json: #"{"predictions": [], "pad": "\#(padding)"}"#))
            let error = try #require(await landmark.outcome(try Uploads.photo(seed: 75), "predict").error)
            #expect(error.kind == "response_too_large" && error.isRetryable, "\(error.message)")
        }
    }

    @Test("an S3 error echoing the signature it got: only its code and message reach the job")
    func s3ErrorEcho() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await Self.jobs(1, into: conninfo, folder: folder)
                try await TestSimulator.with { simulator in
                    let now = Self.amzNow()
                    let forged =
                        "\(simulator.baseURL)/discern-sim/uploads/x.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIADISCERNSIMULATOR%2F\(now.prefix(8))%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=\(now)&X-Amz-Expires=900&X-Amz-SignedHeaders=content-type%3Bhost&X-Amz-Signature=deadbeef0123456789signaturevalue"
                    await simulator.scripted.enqueue(
                        "discerner.upload-url",
                        .init(
                            status: 200,
                            json:
                                #"{"upload_url": "\#(forged)", "image_key": "uploads/x.jpg", "bucket_name": "discern-sim", "expires_in": 900, "content_type": "image/jpg"}"#
                        ))
                    _ = try await TestWorker.drain(conninfo, simulator: simulator)
                }
                let job = try #require(
                    try await Database(conninfo: conninfo).rows(
                        "SELECT state, error_kind, last_error, error_history::text AS history FROM discern.jobs",
                        as: String.self, String?.self, String?.self, String.self
                    ).first)
                let (state, kind, lastError, history) = job
                #expect(state == "dead" && kind == "upload_rejected")
                let text = (lastError ?? "") + history
                #expect(text.contains("SignatureDoesNotMatch"))
                #expect(!text.contains("deadbeef") && !text.contains("StringToSign") && !text.contains("AWS4-HMAC-SHA256\\n"), "\(text)")
            }
        }
    }

    @Test(
        "an upload URL leading into this network (another host over http, a loopback address, a name for one) is never contacted: the job ends dead, naming the host"
    )
    func uploadURLsIntoTheNetwork() async throws {
        let trap = try ConnectionTrap()
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await Self.jobs(3, into: conninfo, folder: folder)
                try await TestSimulator.with { simulator in
                    for url in [
                        "https://\(trap.address):\(trap.port)/discern-sim/uploads/x.jpg",
                        "http://\(trap.address):\(trap.port)/discern-sim/uploads/x.jpg",
                        "https://localhost:\(trap.port)/discern-sim/uploads/x.jpg"
                    ] {
                        await simulator.scripted.enqueue(
                            "discerner.upload-url",
                            .init(
                                status: 200,
                                json:
                                    #"{"upload_url": "\#(url)?X-Amz-SignedHeaders=host", "image_key": "uploads/x.jpg", "bucket_name": "discern-sim", "content_type": "image/jpg"}"#
                            ))
                    }
                    _ = try await TestWorker.drain(conninfo, simulator: simulator)
                }
                let jobs = try await Database(conninfo: conninfo).rows(
                    "SELECT state, error_kind, last_error FROM discern.jobs", as: String.self, String?.self, String?.self)
                let messages = jobs.map { _, _, lastError in lastError ?? "" }
                let outcomes = jobs.map { state, kind, _ in "\(state) \(kind ?? "-")" }
                #expect(outcomes == Array(repeating: "dead upload_destination_refused", count: 3), "\(messages)")
                #expect(messages.filter { $0.contains(trap.address) }.count == 2, "\(messages)")
                #expect(messages.contains { $0.contains("localhost is 127.0.0.1") || $0.contains("localhost is ::1") }, "\(messages)")
                #expect(!trap.wasContacted, "the photo went to \(trap.address)")
            }
        }
    }

    static func amzNow() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date())
    }

    @Test("a 5 MB category is cut; control characters stay data")
    func longStrings() async throws {
        try await TestSimulator.with { simulator in
            let discerner = try SimulatedServices.client(DiscernerClient.self, simulator)
            let long = String(repeating: "A", count: 5 << 20)
            await simulator.scripted.enqueue(
                "discerner.analyze",
                .init(
                    status: 200,
                    json: """
                        {"success": true, "analysis_result": {"statusCode": 200, "body": {"entities": [{"type": "\(long):\\u001b[2J\\r", "operator": "\(long)", "confidence": 0.5}]}}}
                        """))
            let error = try #require(await discerner.outcome(try Uploads.photo(seed: 76), "analyze").error)
            #expect(error.kind == "response_too_large", "a 10 MB answer is over the 4 MiB cap")
            let short = String(repeating: "B", count: 100_000)
            await simulator.scripted.enqueue(
                "discerner.analyze",
                .init(
                    status: 200,
                    json: """
                        {"success": true, "analysis_result": {"statusCode": 200, "body": {"entities": [{"type": "\(short)", "operator": "\(short)", "confidence": 0.5}]}}}
                        """))
            try await Task.sleep(for: .seconds(1.1))
            let analysis = try #require(await discerner.outcome(try Uploads.photo(seed: 77), "analyze").value)
            #expect((analysis.category?.count ?? 0) <= 129 && (analysis.serviceOperator?.count ?? 0) <= 513)
        }
    }
}
