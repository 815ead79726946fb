import Foundation
import Postgres
import SampleImages
import TestFixtures
import Testing

/// The morning after: with the standard `OTEL_*` variables set, each job's journey
/// arrives as one trace over real OTLP/HTTP, decoded by the OpenTelemetry project's own Python
/// classes (scripts/otlp-receiver.py), apart from discern's exporter. Real `discern enqueue` and
/// `discern work` processes, the simulator as a process, real PostgreSQL. Every wait is on an
/// event: a process exiting, spans arriving.
@Suite("Traces", .integrationTimeLimit)
struct TraceTests {
    /// The receiver, run by the Python that has `opentelemetry-proto` (scripts/install-deps.sh
    /// installs it with pip): the one on PATH, resolved to its real executable so no shim stands
    /// between the test and the process it kills.
    static func receiver(folder: URL) async throws -> ScriptServer {
        let python = try await Subprocess.run("/usr/bin/env", ["python3", "-c", "import sys, opentelemetry.proto; print(sys.executable)"])
        return try ScriptServer(folder: folder, script: "otlp-receiver.py", python: python.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Spans by trace, once the completions of `jobs` jobs have arrived (the exporter sends in
    /// batches, and `finish` flushes the last before the process exits).
    static func spans(_ receiver: ScriptServer, completions jobs: Int) async -> [[String: Any]] {
        _ = await Poll.until {
            receiver.received.count { ($0["name"] as? String)?.hasPrefix("complete ") == true } >= jobs
        }
        return receiver.received
    }

    @Test(
        "with OTEL_EXPORTER_OTLP_ENDPOINT set, each job's spans from enqueue to complete form one trace in the messaging conventions, and the service is sent its traceparent"
    )
    func oneTracePerJob() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = folder.appendingPathComponent("night", isDirectory: true)
                try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
                for seed in 1...3 { _ = try photos.write(SampleImages.photo(width: 96, height: 64, seed: seed), as: "photo-\(seed).jpg") }
                let receiver = try await Self.receiver(folder: folder)
                try await receiver.start()
                let tracing = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)", "OTEL_BSP_SCHEDULE_DELAY": "200"]

                let enqueue = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: "", logFolder: folder,
                    arguments: [photos.path, "--database-url", conninfo], environment: tracing,
                    plainArguments: true, command: "enqueue")
                #expect(await enqueue.expectExit() && enqueue.exitStatus == 0, "\(enqueue.output.suffix(1500))")
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--drain"], environment: tracing)
                #expect(await worker.expectExit() && worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                let headers = (await simulator.stats())?["traceparents"] as? [String: [String]] ?? [:]
                await simulator.stop()

                let jobs: [(id: Int, state: String, traceparent: String?)] = try await Database(conninfo: conninfo, name: "test-traces").rows(
                    "SELECT id, state, traceparent FROM discern.jobs ORDER BY id", as: Int.self, String.self, String?.self
                )
                #expect(jobs.count == 3 && jobs.allSatisfy { $0.state == "succeeded" })
                let spans = await Self.spans(receiver, completions: jobs.count)
                for job in jobs {
                    let traceparent = try #require(job.traceparent, "job \(job.id) was stored without its enqueue's traceparent")
                    let traceID = String(traceparent.split(separator: "-")[1])
                    let trace = spans.filter { $0["trace_id"] as? String == traceID }
                    // One span of each name where the run that succeeded put it (an attempt handed back
                    // on a loaded machine continues the same trace with a process span of its own).
                    func one(_ name: String, under parent: [String: Any]? = nil) throws -> [String: Any] {
                        let found = trace.filter {
                            $0["name"] as? String == name && (parent == nil || $0["parent_span_id"] as? String == parent?["span_id"] as? String)
                        }
                        try #require(
                            found.count == 1, "job \(job.id): \(found.count) spans named '\(name)' in its trace: \(trace.map { $0["name"] ?? "" })")
                        return found[0]
                    }
                    let enqueued = try one("enqueue discerner")
                    let process = try #require(
                        trace.first {
                            $0["name"] as? String == "process discerner"
                                && ($0["attributes"] as? [String: Any])?["discern.outcome"] as? String == "succeeded"
                        }, "job \(job.id): no process span that succeeded: \(trace)")
                    let prepare = try one("prepare", under: process), analyze = try one("analyze discerner", under: process)
                    let complete = try one("complete discerner", under: process), upload = try one("upload", under: analyze)
                    #expect(
                        enqueued["span_id"] as? String == String(traceparent.split(separator: "-")[2]),
                        "the stored traceparent names the enqueue span")
                    #expect(enqueued["kind"] as? String == "SPAN_KIND_PRODUCER" && process["kind"] as? String == "SPAN_KIND_CONSUMER")
                    // The journey's shape: enqueue → process → (prepare, analyze → calls, complete).
                    #expect(process["parent_span_id"] as? String == enqueued["span_id"] as? String)
                    for child in [prepare, analyze, complete] { #expect(child["parent_span_id"] as? String == process["span_id"] as? String) }
                    #expect(upload["parent_span_id"] as? String == analyze["span_id"] as? String)
                    let calls = trace.filter { $0["name"] as? String == "POST" && $0["parent_span_id"] as? String == analyze["span_id"] as? String }
                    let answered = calls.filter { ($0["attributes"] as? [String: Any])?["http.response.status_code"] != nil }
                    #expect(answered.count >= 2, "upload-url and analyze, each a client span under analyze: \(calls)")
                    for span in [enqueued, process, complete] {
                        let attributes = span["attributes"] as? [String: Any] ?? [:]
                        #expect(
                            attributes["messaging.system"] as? String == "discern"
                                && attributes["messaging.destination.name"] as? String == "discerner",
                            "\(span["name"] ?? ""): \(attributes)")
                        #expect(span["service"] as? String == "discern")
                    }
                    #expect((process["attributes"] as? [String: Any])?["messaging.operation.type"] as? String == "process")
                    #expect((process["attributes"] as? [String: Any])?["messaging.message.id"] as? String == "\(job.id)")
                    #expect((complete["attributes"] as? [String: Any])?["messaging.operation.type"] as? String == "settle")
                    #expect((enqueued["attributes"] as? [String: Any])?["messaging.operation.type"] as? String == "create")
                    // The service was told which span each call was: every call it answered carried
                    // its span's traceparent (a call that never reached it, none).
                    let sent = Set((headers["discern-job-\(job.id)"] ?? []).map { String($0.split(separator: "-")[2]) })
                    let spanIDs = Set(trace.filter { $0["name"] as? String == "POST" }.compactMap { $0["span_id"] as? String })
                    #expect(
                        Set(answered.compactMap { $0["span_id"] as? String }).isSubset(of: sent) && sent.isSubset(of: spanIDs),
                        "traceparent headers of job \(job.id): \(sent)")
                }
                // What a person looks a job up by, to find its trace.
                let first = try #require(jobs.first)
                let sheet = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: "", logFolder: folder,
                    arguments: ["show", "\(first.id)", "--database-url", conninfo], plainArguments: true, command: "jobs")
                #expect(await sheet.expectExit() && sheet.exitStatus == 0)
                let traceID = first.traceparent.map { String($0.split(separator: "-")[1]) } ?? "?"
                #expect(sheet.output.contains("trace:       \(traceID)"), "\(sheet.output)")
                // Claims are batches: each says how many it took and links to their traces.
                let claims = spans.filter { $0["name"] as? String == "claim discerner" }
                let claimed = claims.compactMap { ($0["attributes"] as? [String: Any])?["messaging.batch.message_count"] as? Int }.reduce(0, +)
                #expect(claimed == jobs.count, "\(claims)")
                let linked = Set(claims.flatMap { ($0["links"] as? [[String: Any]] ?? []).compactMap { $0["trace_id"] as? String } })
                #expect(linked == Set(jobs.compactMap { $0.traceparent.map { String($0.split(separator: "-")[1]) } }))
                await receiver.stop()
            }
        }
    }

    @Test("the traceparent check (migration 0034's cheap form) accepts exactly what the W3C pattern of migration 0033 accepts")
    func cheaperCheckIsTheSame() async throws {
        let hex32 = "0af7651916cd43dd8448eb211c80319c", hex16 = "b7ad6b7169203331"
        let valid = "00-\(hex32)-\(hex16)-01"
        // Each way to be almost right: a wrong length in any part, a dash moved, doubled or missing,
        // upper case, a non-hex letter, whitespace, a multibyte character of the same byte length.
        let candidates = [
            valid, "ff-\(hex32)-\(hex16)-ff", "00-\(hex32.uppercased())-\(hex16)-01", "00-\(hex32)-\(hex16)-0g",
            "0-\(hex32)0-\(hex16)-01", "000-\(hex32.dropLast())-\(hex16)-01", "00-\(hex32)\(hex16.prefix(1))-\(hex16.dropFirst())-01",
            "00-\(hex32)-\(hex16)-01-", "00-\(hex32)-\(hex16)--1", "00--\(hex32.dropFirst())-\(hex16)-01", "00-\(hex32)-\(hex16)-1",
            "00-\(hex32)-\(hex16)-012", " 0-\(hex32)-\(hex16)-01", "00-\(hex32)-\(hex16)-0\n", "00-\(hex32.dropLast(2))é-\(hex16)-01",
            "00_\(hex32)-\(hex16)-01", "00-\(hex32)_\(hex16)-01", "00-\(hex32)-\(hex16)_01", String(repeating: "-", count: 55),
            "00-\(String(repeating: "-", count: 32))-\(hex16)-01", ""
        ]
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-traceparent-check")
            for candidate in candidates {
                let old = try await database.value(
                    "SELECT \(candidate)::text ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'", as: Bool.self)
                let accepted: Bool
                do {
                    try await database.execute("INSERT INTO discern.jobs (image_path, traceparent) VALUES ('/t.jpg', \(candidate))")
                    accepted = true
                } catch let error as PostgresError where error.sqlState == "23514" {
                    #expect(error.message.contains("jobs_traceparent_w3c"), "\(error.message)")
                    accepted = false
                }
                #expect(accepted == old, "\(candidate.debugDescription): the W3C pattern says \(old), the check says \(accepted)")
            }
            #expect(try await database.rows("SELECT 1 FROM discern.jobs", as: Int.self).count == 2, "the two valid values, stored")
        }
    }

    @Test("a traceparent given in SQL is continued on a first attempt; a later attempt starts its own trace linked to it")
    func sqlTraceparentAndRetries() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photo = try folder.write(SampleImages.photo(width: 96, height: 64, seed: 7), as: "given.jpg")
                let receiver = try await Self.receiver(folder: folder)
                try await receiver.start()
                let first = "00-\(String(repeating: "a1", count: 16))-\(String(repeating: "b2", count: 8))-01"
                let retried = "00-\(String(repeating: "c3", count: 16))-\(String(repeating: "d4", count: 8))-01"
                let database = Database(conninfo: conninfo, name: "test-traces")
                // A first attempt, and one whose first attempt was spent already (a retry).
                try await database.execute(
                    """
                    INSERT INTO discern.jobs (backend, action, image_path, traceparent, attempts)
                    VALUES ('discerner', 'analyze', \(photo), \(first), 0), ('discerner', 'analyze', \(photo), \(retried), 1)
                    """)
                // A malformed one is refused by name, not dropped later.
                await #expect(throws: (any Error).self) {
                    _ = try await database.execute(
                        "INSERT INTO discern.jobs (backend, action, image_path, traceparent) VALUES ('discerner', 'analyze', \(photo), 'not-a-trace')"
                    )
                }
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--drain"], environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)"])
                #expect(await worker.expectExit() && worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                await simulator.stop()
                let processes = await Self.spans(receiver, completions: 2).filter { $0["name"] as? String == "process discerner" }
                try #require(processes.count == 2, "\(processes)")
                let continued = processes.filter { $0["trace_id"] as? String == String(repeating: "a1", count: 16) }
                #expect(continued.count == 1 && continued.first?["parent_span_id"] as? String == String(repeating: "b2", count: 8))
                let retry = try #require(processes.first { $0["trace_id"] as? String != String(repeating: "a1", count: 16) })
                #expect(
                    retry["trace_id"] as? String != String(repeating: "c3", count: 16) && retry["parent_span_id"] as? String == "",
                    "a retry's trace is its own")
                let links = retry["links"] as? [[String: Any]] ?? []
                #expect(
                    links.count == 1 && links.first?["trace_id"] as? String == String(repeating: "c3", count: 16)
                        && links.first?["span_id"] as? String == String(repeating: "d4", count: 8), "\(links)")
                await receiver.stop()
            }
        }
    }
}
