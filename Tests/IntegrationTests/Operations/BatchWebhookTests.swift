import Foundation
import Postgres
import Testing

/// The morning after: a batch that ends tells people, exactly once, signed, however
/// the night went, and a script can wait for it. Real workers, a real receiver on loopback that
/// checks signatures with its own code (scripts/webhook-receiver.py), real PostgreSQL. Every
/// wait is on an event (a row, a request received, a process exiting); the retry pauses come
/// from the settings, so a receiver down "for minutes" is a few failed tries here.
@Suite("Batch webhooks", .integrationTimeLimit)
struct BatchWebhookTests {
    static func environment(_ receiver: WebhookReceiver, settleSeconds: Double = 0, extra: [String: String] = [:]) -> [String: String] {
        [
            "DISCERN_WEBHOOK_URLS": receiver.url, "DISCERN_WEBHOOK_ALLOW_HOSTS": "127.0.0.1", "DISCERN_WEBHOOK_SECRET": receiver.secret,
            "DISCERN_WEBHOOK_SETTLE_SECONDS": "\(settleSeconds)", "DISCERN_CONSOLE_PUBLIC_URL": "https://console.example.org/",
            "DISCERN_WEBHOOK_RETRY_SECONDS": "0.2", "DISCERN_WEBHOOK_MAX_RETRY_SECONDS": "1"
        ].merging(extra) { $1 }
    }

    /// `discern batches wait NAME` and its exit status.
    static func wait(_ conninfo: String, _ name: String, _ extra: [String] = [], folder: URL) async throws -> Int32? {
        let process = try WorkerProcess(
            conninfo: conninfo, simulatorURL: "", logFolder: folder,
            arguments: ["wait", name, "--database-url", conninfo, "--every", "0.2"] + extra,
            plainArguments: true, command: "batches")
        await process.expectExit()
        return process.exitStatus
    }

    static func deliveries(_ conninfo: String) async throws -> [(state: String, attempts: Int, destination: String, lastError: String?)] {
        try await Database(conninfo: conninfo, name: "test-deliveries").rows(
            "SELECT state, attempts, destination, last_error FROM discern.notification_deliveries ORDER BY event_id",
            as: String.self, Int.self, String.self, String?.self
        )
    }

    @Test(
        "a batch drained by a real worker delivers one signed webhook with its report and a link; the URL's token is in no log or row; batches wait exits 0"
    )
    func drainedBatchNotifies() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(6, into: conninfo, folder: folder, batch: "night-1")
                let receiver = try WebhookReceiver(folder: folder)
                try await receiver.start()
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--drain", "--log-level", "info"], environment: Self.environment(receiver, settleSeconds: 3600))
                await worker.expectExit()
                await simulator.stop()
                #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                // Settling would take an hour: the drained worker announced on its way out.
                let received = receiver.received
                #expect(received.count == 1, "\(received)\n\(worker.output.suffix(1500))")
                let request = try #require(received.first)
                #expect(request["signature"] as? String == "valid")
                #expect(request["event"] as? String == "batch.finished")
                #expect(request["content_type"] as? String == "application/json")
                let body = try #require(request["body"] as? [String: Any])
                let report = try #require(body["report"] as? [String: Any])
                #expect(body["batch"] as? String == "night-1")
                #expect(body["id"] as? String == request["delivery"] as? String)
                #expect(report["succeeded"] as? Int == 6 && report["dead"] as? Int == 0 && report["jobs"] as? Int == 6)
                #expect(report["api_calls"] as? Int == 12, "upload-url and analyze for each of 6 (the PUT to storage is not the service's)")
                #expect(body["console_url"] as? String == "https://console.example.org/report?batch=night-1")
                let text = try #require(body["text"] as? String)
                #expect(text.hasPrefix("discern: batch night-1 is done: 6 succeeded, 0 dead of 6 jobs"), "\(text)")
                // The URL is a credential: its token appears nowhere a person or a dashboard reads.
                let rows = try await Self.deliveries(conninfo)
                #expect(rows.map(\.state) == ["delivered"])
                #expect(!worker.output.contains(WebhookReceiver.token) && !rows.contains { $0.destination.contains(WebhookReceiver.token) })
                #expect(try await Self.wait(conninfo, "night-1", folder: folder) == 0)
                await receiver.stop()
            }
        }
    }

    @Test("a receiver down for a while gets the webhook once it is back, exactly once")
    func receiverBackLater() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(4, into: conninfo, folder: folder, batch: "night-2")
                let receiver = try WebhookReceiver(folder: folder)  // not listening yet: connections refused
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--log-level", "info"], environment: Self.environment(receiver))
                defer { worker.kill() }
                let failing = await Poll.until {
                    ((try? await Self.deliveries(conninfo)) ?? []).contains { $0.state == "pending" && $0.attempts >= 3 }
                }
                #expect(failing, "three tries failed while the receiver was away: \(worker.output.suffix(1500))")
                let error = try await Self.deliveries(conninfo).first?.lastError ?? ""
                #expect(error.contains("was not reached") && !error.contains(WebhookReceiver.token), "\(error)")
                try await receiver.start()
                let delivered = await Poll.until {
                    ((try? await Self.deliveries(conninfo)) ?? []).map(\.state) == ["delivered"]
                }
                #expect(delivered, "\(worker.output.suffix(1500))")
                #expect(receiver.received.count == 1)
                #expect(receiver.received.first?["signature"] as? String == "valid")
                await WorkerProcess.stopAll([worker])
                await simulator.stop()
                await receiver.stop()
            }
        }
    }

    @Test("a worker killed the moment its batch ends leaves the end recorded: the next worker delivers it, once")
    func killedAtTheEnd() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(20, into: conninfo, folder: folder, batch: "night-3")
                let receiver = try WebhookReceiver(folder: folder)
                try await receiver.start()
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                // This worker would wait an hour for the batch to settle: killed first, it never
                // announces; what survives is the check its last completion committed.
                let first = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--log-level", "info"], environment: Self.environment(receiver, settleSeconds: 3600))
                #expect(try await ChaosJobs.finished(conninfo, total: 20))
                first.kill()
                _ = await first.waitForExit()
                #expect(receiver.received.isEmpty)
                let second = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--drain", "--log-level", "info"], environment: Self.environment(receiver, settleSeconds: 3600))
                await second.expectExit()
                await simulator.stop()
                #expect(receiver.received.count == 1, "\(receiver.received)\n\(second.output.suffix(1500))")
                #expect(try await Self.deliveries(conninfo).map(\.state) == ["delivered"])
                #expect(try await TestDatabase.census(conninfo).succeeded == 20)
                await receiver.stop()
            }
        }
    }

    @Test("batches wait: 1 when a job died, 2 when the timeout comes first, 64 for a batch that does not exist")
    func waitStatuses() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                try await database.execute("SELECT discern.enqueue(\(folder.appendingPathComponent("missing.jpg").path), batch => 'with-dead')")
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"])
                await worker.expectExit()
                await simulator.stop()
                #expect(try await Self.wait(conninfo, "with-dead", folder: folder) == 1)
                try await database.execute("SELECT discern.enqueue(\(folder.appendingPathComponent("later.jpg").path), batch => 'still-open')")
                #expect(try await Self.wait(conninfo, "still-open", ["--timeout", "0.5"], folder: folder) == 2)
                #expect(try await Self.wait(conninfo, "no-such-batch", folder: folder) == 64)
            }
        }
    }
}
