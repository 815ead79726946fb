import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing
import Worker

/// The service away for minutes, as a night meets it: real worker processes, the simulator as a
/// process that is killed and brought back. The phases last `OutageSettings.phaseSeconds`
/// (DISCERN_TEST_OUTAGE_SECONDS; 600 for a ten-minute outage); everything else waits on events,
/// never on the clock.
@Suite("Chaos: the service away for minutes", .integrationTimeLimit)
struct OutageTests {
    @Test(
        "refused for a phase, then 5xx to everything for a phase, while 3 workers drain a batch with photos arriving: no job dies, the failing service gets only the probes, the first probe after its return reopens claims, the batch finishes"
    )
    func serviceAwayForMinutes() async throws {
        let phase = OutageSettings.phaseSeconds, breaker = BreakerSettings()
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let observer = Database(conninfo: conninfo, name: "test-outage")
                try await ChaosJobs.enqueue(120, into: conninfo, folder: folder, batch: "night")
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(OutageSettings.healthy)
                let workers = try (0..<3).map { _ in
                    try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--metrics-port", "0", "--log-format", "json", "--log-level", "notice"])
                }
                let arrivals = PhotoArrivals(conninfo: conninfo, folder: folder)
                arrivals.start()
                /// Records why the run went wrong, with what a person needs to see it, when `ok` is false.
                @discardableResult
                func check(_ ok: Bool, _ what: String) async throws -> Bool {
                    if !ok {
                        Issue.record(
                            "\(what)\n\(try await TestDatabase.census(conninfo))\n\(try await ChaosJobs.unfinishedJobs(conninfo))\nlogs: \(ChaosJobs.keepLogs(of: folder, test: "outage"))"
                        )
                    }
                    return ok
                }
                func breakerOpen() async throws -> Bool {
                    try await observer.rows("SELECT 1 FROM discern.service_breakers WHERE backend = 'discerner'", as: Int.self).count > 0
                }

                try await check(
                    try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).succeeded >= 10 },
                    "the workers did not get going")

                // Refused: nothing listens on the service's port.
                let callsAtStart = await Self.calls(workers)
                await simulator.stop()
                guard try await check(try await Announcements.until(conninfo) { try await breakerOpen() }, "no breaker tripped") else { return }
                let everyoneKnows = await Poll.until {
                    var open = 0.0
                    for worker in workers { open += await worker.metric("discern_breaker_open", ["service": "discerner"]) ?? 0 }
                    return open == Double(workers.count)
                }
                guard try await check(everyoneKnows, "not every worker learnt that the service is down") else { return }
                let callsBefore = await Self.calls(workers)
                let outageStarted = Date()
                try await Task.sleep(for: .seconds(phase))

                // Answering, but 500/502/503 to every call.
                try await simulator.start(OutageSettings.healthy + ["--error-rate", "1"])
                try await Task.sleep(for: .seconds(phase))
                let stillOpen = try await breakerOpen()
                #expect(stillOpen, "the breaker closed while every call failed")

                // Back. Between probes, so that none is in flight across the return.
                _ = try await Announcements.until(conninfo) {
                    try await observer.rows(
                        """
                        SELECT 1 FROM discern.service_breakers b
                        WHERE NOT EXISTS (SELECT 1 FROM discern.jobs j WHERE j.id = b.probe_job AND j.state = 'running')
                          AND b.next_probe_at > now() + interval '2 seconds'
                        """, as: Int.self
                    ).count > 0
                }
                await simulator.stop()
                try await simulator.start(OutageSettings.healthy)
                let returned = Date()
                let outageCalls = await Self.calls(workers) - callsBefore
                let outageSeconds = returned.timeIntervalSince(outageStarted)
                let probesBeforeReturn =
                    try await observer.rows(
                        "SELECT probes_failed FROM discern.service_breakers WHERE backend = 'discerner'", as: Int.self
                    ).first ?? -1
                guard
                    try await check(
                        try await Announcements.until(conninfo) { try await !breakerOpen() },
                        "the breaker did not close after the service came back")
                else { return }
                let closed =
                    try await observer.rows(
                        """
                        SELECT scope FROM discern.operator_actions WHERE action = 'available' ORDER BY id DESC LIMIT 1
                        """, as: String.self
                    ).first ?? "-"
                await arrivals.stop()
                let total = try await observer.value("SELECT count(*) FROM discern.jobs", as: Int.self)
                let drained = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).succeeded == total }
                await WorkerProcess.stopAll(workers)
                await simulator.stop()

                let census = try await TestDatabase.census(conninfo)
                let probes = OutageSettings.probes(within: outageSeconds, breaker)
                let firstResult =
                    try await observer.value(
                        """
                        SELECT extract(epoch FROM min(finished_at))::float8 - \(returned.timeIntervalSince1970) AS s
                        FROM discern.jobs WHERE state = 'succeeded' AND finished_at > to_timestamp(\(returned.timeIntervalSince1970))
                        """, as: Double?.self
                    ) ?? -1
                print(
                    "outage: \(Int(outageSeconds)) s away (\(phase) s refused, \(phase) s 5xx); \(callsBefore - callsAtStart) calls failed "
                        + "before every worker knew, then \(outageCalls) calls to it from 3 workers "
                        + "(\(String(format: "%.1f", Double(outageCalls) * 60 / outageSeconds)) a minute; \(probes) probes at most by the settings), "
                        + "\(total) jobs, \(census.dead) dead; the first result \(Int(firstResult)) s after the return; closed: \(closed)")
                try await check(drained, "the batch did not finish")
                try await check(
                    census.dead == 0 && census.succeeded == total && census.jobsWithOneResult == total && census.results == total,
                    "jobs were lost, doubled or dead")
                // The failing service heard only the probes, one call each, across all workers.
                try await check(outageCalls <= probes + 2, "\(outageCalls) calls in \(Int(outageSeconds)) s; the probes allow \(probes)")
                // The first probe after the return closed it: none failed once it was back, but one
                // already under way against the old one.
                let failedProbes = closed.firstMatch(of: /and (\d+) failed probe/).flatMap { Int($0.1) }
                #expect(
                    failedProbes.map { $0 <= probesBeforeReturn + 1 } ?? false,
                    "closed: \(closed); \(probesBeforeReturn) probes had failed at the return")
            }
        }
    }

    /// Calls the workers sent to the service so far (`discern_service_calls_total`).
    static func calls(_ workers: [WorkerProcess]) async -> Int {
        var total = 0.0
        for worker in workers { total += await worker.metric("discern_service_calls_total", ["service": "discerner"]) ?? 0 }
        return Int(total)
    }

    @Test(
        "a lone job meeting a service that refuses connections trips the breaker before its attempts run out, outlives the probes that fail on it, and succeeds once the service is back"
    )
    func loneJobOutlivesAnOutage() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(1, into: conninfo, folder: folder)
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(OutageSettings.healthy)
                await simulator.stop()
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--log-level", "notice", "--poll-seconds", "1"])
                let observer = Database(conninfo: conninfo, name: "test-lone")
                let tripped = try await Announcements.until(conninfo) {
                    let breakers = try await observer.rows("SELECT 1 FROM discern.service_breakers", as: Int.self).count
                    let dead = try await TestDatabase.census(conninfo).dead
                    return breakers > 0 || dead > 0
                }
                // The lone job is every probe: refused, none may count, however many fail (the
                // third would count were the failure one a photo could cause).
                let probed = try await Announcements.until(conninfo) {
                    let failed = try await observer.rows("SELECT probes_failed FROM discern.service_breakers", as: Int.self).first ?? 0
                    return try await TestDatabase.census(conninfo).dead > 0 || failed >= 4
                }
                let (state, attempts) = try #require(
                    try await observer.rows("SELECT state, attempts FROM discern.jobs", as: String.self, Int.self).first)
                try await simulator.start(OutageSettings.healthy)
                let done = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).succeeded == 1 }
                await WorkerProcess.stopAll([worker])
                await simulator.stop()
                let census = try await TestDatabase.census(conninfo)
                let explained = ChaosJobs.FailureStory(
                    facts: "\(census)\n\(try await ChaosJobs.unfinishedJobs(conninfo))", folder: folder, test: "lone-job")
                #expect(tripped && probed && census.dead == 0, "\(explained)")
                #expect(state != "dead" && attempts < 5, "\(explained)")
                #expect(done && census == QueueCensus(succeeded: 1, results: 1, jobsWithOneResult: 1), "\(explained)")
            }
        }
    }

    @Test(
        "a service refusing discern's key (HTTP 401) holds the jobs behind its breaker, named auth_failed, never the key; none ends dead, and a worker with the right key finishes them without discern retry"
    )
    func refusedKeyHoldsTheJobs() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = try (1...6).map { try folder.write(SampleImages.photo(width: 320, height: 256, seed: $0), as: "face-\($0).jpg") }
                try await Database(conninfo: conninfo, name: "test-keys-enqueue").withConnection { connection in
                    try JobQueue.enqueue(connection, paths: photos, service: "ooto", action: "identify", batch: "keys")
                    try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let wrong = "not-the-key-\(UUID().uuidString)"
                    let refused = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--service", "ooto"],
                        environment: simulator.workerEnvironment.merging(["DISCERN_OOTO_APP_KEY": wrong]) { $1 })
                    let observer = Database(conninfo: conninfo, name: "test-keys")
                    let tripped = try await Announcements.until(conninfo) {
                        try await observer.rows("SELECT 1 FROM discern.service_breakers WHERE backend = 'ooto'", as: Int.self).count > 0
                    }
                    await WorkerProcess.stopAll([refused])
                    let breakers: [(errorKind: String?, lastError: String?)] = try await observer.rows(
                        "SELECT error_kind, last_error FROM discern.service_breakers", as: String?.self, String?.self
                    )
                    let breaker = breakers.first
                    let said = breaker?.lastError ?? ""
                    #expect(tripped, "the refusals tripped nothing: \(refused.output.suffix(1500))")
                    #expect(breaker?.errorKind == "auth_failed", "\(said)")
                    #expect(!said.contains(wrong) && !refused.output.contains(wrong), "the key reached a message")
                    #expect(try await TestDatabase.census(conninfo).dead == 0, "a job ended dead for the key's sake")
                    let fixed = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--service", "ooto", "--drain"],
                        environment: simulator.workerEnvironment)
                    #expect(await fixed.expectExit() && fixed.exitStatus == 0, "\(fixed.output.suffix(1500))")
                }
                let census = try await TestDatabase.census(conninfo)
                #expect(census == QueueCensus(succeeded: 6, results: 6, jobsWithOneResult: 6), "\(census)")
            }
        }
    }

    @Test("a service failing one call in five keeps its per-job retries and trips nothing; every job succeeds once")
    func partialFailureTripsNothing() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.serverErrorRate = 0.2
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(150, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator) { $0.concurrency = 8 }
                    let observer = Database(conninfo: conninfo, name: "test-partial")
                    let trips = try await observer.value("SELECT count(*) FROM discern.operator_actions WHERE action = 'unavailable'", as: Int.self)
                    #expect(trips == 0, "the breaker tripped on a 20 % failure rate")
                    let faults = await simulator.stats.faultCount("5xx")
                    #expect(faults > 20, "the simulator failed too few calls to mean anything")
                    #expect(summary.handedBackLater == 0 && summary.dead == 0, "\(summary)")
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census == QueueCensus(succeeded: 150, results: 150, jobsWithOneResult: 150))
                }
            }
        }
    }

    @Test("photos the service refuses (a 400, a vision refusal) die on their own and trip nothing; the jobs after them succeed")
    func refusedPhotosTripNothing() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(12, into: conninfo, folder: folder)
                try await TestSimulator.with(.unthrottled) { simulator in
                    for index in 0..<6 {
                        await simulator.scripted.enqueue(
                            "discerner.analyze",
                            index % 2 == 0
                                ? .init(status: 400, json: #"{"error": "Invalid image"}"#)
                                : .init(
                                    status: 500,
                                    json:
                                        #"{"success": false, "error": "Step Functions execution failed", "cause": "400 Client Error: Bad image data"}"#
                                ))
                    }
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator) {
                        $0.concurrency = 1; $0.prepareQueue = 1
                    }
                    let observer = Database(conninfo: conninfo, name: "test-refused")
                    let trips = try await observer.value("SELECT count(*) FROM discern.operator_actions WHERE action = 'unavailable'", as: Int.self)
                    #expect(trips == 0, "a photo's refusal tripped the breaker")
                    #expect(summary.dead == 6 && summary.succeeded == 6 && summary.handedBackLater == 0, "\(summary)")
                    let kinds = try await observer.rows(
                        "SELECT DISTINCT error_kind FROM discern.jobs WHERE state = 'dead' ORDER BY 1", as: String.self)
                    #expect(kinds == ["discerner_image_rejected", "http_4xx"])
                }
            }
        }
    }
}

/// The outage test's settings: how long each phase lasts, from the environment.
enum OutageSettings {
    /// DISCERN_TEST_OUTAGE_SECONDS, default 45: long enough for several probes at the defaults.
    static var phaseSeconds: Double {
        ProcessInfo.processInfo.environment["DISCERN_TEST_OUTAGE_SECONDS"].flatMap(Double.init).map { max(10, $0) } ?? 45
    }

    /// The simulator as a healthy service: no throughput limit (three workers, hundreds of jobs),
    /// each analysis a fifth of a second.
    static let healthy = ["--no-throughput-limits", "--analyze-seconds", "0.2"]

    /// The most probes the breaker's schedule allows in `seconds` from the trip (its jitter
    /// taken at its shortest): the first, then one each `maxProbeSeconds`.
    static func probes(within seconds: Double, _ settings: BreakerSettings) -> Int {
        var at = settings.firstProbeSeconds * 0.9, count = 0
        while at <= seconds {
            count += 1
            at += max(settings.maxProbeSeconds, settings.firstProbeSeconds) * 0.9
        }
        return count
    }
}

/// Photos still arriving while the night runs: one job a second until stopped.
final class PhotoArrivals: @unchecked Sendable {
    private let conninfo: String
    private let folder: URL
    private var task: Task<Void, Never>?

    init(conninfo: String, folder: URL) {
        self.conninfo = conninfo
        self.folder = folder
    }

    func start() {
        let conninfo = self.conninfo, path = folder.appendingPathComponent("img-1.jpg").path
        task = Task {
            let database = Database(conninfo: conninfo, name: "test-arrivals")
            while !Task.isCancelled {
                _ = try? await database.withConnection { try JobQueue.enqueue($0, paths: [path], batch: "night") }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Returns once the last arrival is in.
    func stop() async {
        task?.cancel()
        await task?.value
    }

    deinit { task?.cancel() }
}
