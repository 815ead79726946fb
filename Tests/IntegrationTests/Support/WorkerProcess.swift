import Postgres
import Testing
import Foundation

/// A `discern work` process, as operations run it: the built binary, real signals.
final class WorkerProcess: @unchecked Sendable {
    private let process = Process()
    let log: URL

    static var binary: URL {
        get throws {
            // The test bundle and the discern executable are built into the same folder.
            let url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
                .deletingLastPathComponent().appendingPathComponent("discern")
            guard FileManager.default.isExecutableFile(atPath: url.path) else {
                throw TestSetupError("\(url.path) is missing: build with `swift build --build-tests` (scripts/test.sh does)")
            }
            return url
        }
    }

    /// `discern work` with the database and the simulator given as flags, or, with
    /// `plainArguments`, exactly the arguments given after `work`.
    /// - Parameter cgroup: a cgroup folder the process starts in (`MemoryCgroup`), from its first
    ///   instruction: a shell joins it, then becomes discern.
    /// - Parameter binary: another discern than the one built with the tests (an earlier release).
    init(
        conninfo: String, simulatorURL: String, logFolder: URL, arguments: [String] = [], environment: [String: String] = [:],
        plainArguments: Bool = false, command: String = "work", cgroup: String? = nil, binary: URL? = nil
    ) throws {
        log = logFolder.appendingPathComponent("worker-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let discernArguments =
            plainArguments
            ? [command] + arguments
            : ["work", "--database-url", conninfo, "--discerner-url", simulatorURL, "--log-level", "warning"] + arguments
        if let cgroup {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", #"echo $$ > "$1/cgroup.procs" && shift && exec "$@""#, "sh", cgroup, try binary?.path ?? Self.binary.path] + discernArguments
        } else {
            process.executableURL = try binary ?? Self.binary
            process.arguments = discernArguments
        }
        let output = try FileHandle(forWritingTo: log)
        // Test files live under the temporary directory: the workers' path root.
        process.environment = ProcessInfo.processInfo.environment
            .merging(["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path]) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    /// Its exit status; nil while it runs (Foundation traps on reading a running process's, which
    /// took the whole test process down once a worker outlived its test's deadline).
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// The port of the metrics endpoint, from the JSON log line announcing it (run the process
    /// with `--metrics-port 0 --log-format json` and a log level of notice or lower).
    func announcedMetricsPort(seconds: Double = 120, key: String = "metrics_port") async -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let port = output.split(separator: "\n").lazy.compactMap { line -> Int? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else { return nil }
                return object[key].flatMap(Int.init)
            }.first
            if let port { return port }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }
    func terminate() { Foundation.kill(process.processIdentifier, SIGTERM) }
    /// Freezes the process (SIGSTOP): alive, but doing nothing until `resume`, as a worker
    /// starved of CPU, however fast the machine.
    func pause() { Foundation.kill(process.processIdentifier, SIGSTOP) }
    func resume() { Foundation.kill(process.processIdentifier, SIGCONT) }

    /// Waits for the process to end, up to `seconds`; true if it did.
    func waitForExit(seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return !process.isRunning
    }

    /// Waits for the process to end, up to `seconds`; when it does not, records an issue with the
    /// end of its log (what it was doing then is the bug report: a run that fails once under load
    /// cannot be asked again) and returns false.
    @discardableResult
    func expectExit(seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        if await waitForExit(seconds: seconds) { return true }
        Issue.record(
            "the worker (pid \(pid)) had not exited after \(Int(seconds)) s; its log ends:\n\(output.suffix(4000))",
            sourceLocation: sourceLocation)
        return false
    }

    /// SIGTERM to each (and SIGCONT, for one a failed test left paused), then waits for all of them to exit.
    static func stopAll(_ workers: [WorkerProcess]) async {
        workers.forEach {
            $0.terminate(); $0.resume()
        }
        for worker in workers { _ = await worker.waitForExit(seconds: 10) }
    }

    deinit {
        if process.isRunning { kill() }
    }
}

/// What the jobs table says, for chaos assertions.
struct QueueCensus: Equatable, CustomStringConvertible {
    var succeeded = 0
    var dead = 0
    var running = 0
    var available = 0
    var results = 0
    var jobsWithOneResult = 0

    var description: String {
        "succeeded \(succeeded), dead \(dead), running \(running), available \(available), results \(results), jobs with one result \(jobsWithOneResult)"
    }
}

extension TestDatabase {
    static func census(_ conninfo: String) async throws -> QueueCensus {
        let row = try #require(
            try await Postgres.Database(conninfo: conninfo, name: "test-census").rows(
                """
                SELECT count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                       count(*) FILTER (WHERE state = 'dead') AS dead,
                       count(*) FILTER (WHERE state = 'running') AS running,
                       count(*) FILTER (WHERE state = 'available') AS available,
                       (SELECT count(*) FROM discern.results) AS results,
                       (SELECT count(*) FROM (SELECT job_id FROM discern.results GROUP BY job_id HAVING count(*) = 1) AS one) AS one
                FROM discern.jobs
                """
            ).first)
        return QueueCensus(
            succeeded: try row.int("succeeded"), dead: try row.int("dead"), running: try row.int("running"),
            available: try row.int("available"), results: try row.int("results"), jobsWithOneResult: try row.int("one"))
    }
}
