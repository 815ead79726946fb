import Foundation
import Postgres
import Synchronization
import Testing

/// A `discern work` process, as operations run it: the built binary, real signals. Its output
/// goes through a pipe into `log` (OutputCopier), so a test waits on the output itself (`logged`)
/// and on the exit itself (`waitForExit`), never on a clock.
final class WorkerProcess: @unchecked Sendable {
    private let process = Process()
    let log: URL
    /// Moves with each chunk of output, when the process ends and when its output is all copied.
    private let events = EventCount()
    private let ends = Ends()

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
        // Test files live under the temporary directory: the workers' path root.
        process.environment = ProcessInfo.processInfo.environment
            .merging(["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path]) { $1 }
            .merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let copier = try OutputCopier(
            from: output, into: try FileHandle(forWritingTo: log), onChunk: { [events] in events.bump() },
            onEnd: { [events, ends] in
                ends.state.withLock { $0.outputCopied = true }
                events.bump()
            })
        process.terminationHandler = { [events, ends] _ in
            ends.state.withLock { $0.terminated = true }
            copier.childEnded()
            events.bump()
        }
        do {
            try process.run()
        } catch {
            copier.childEnded()
            throw error
        }
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    /// Ended, and all it wrote is in the log.
    var hasExited: Bool { ends.state.withLock { $0.terminated && $0.outputCopied } }
    /// Its exit status; nil while it runs (Foundation traps on reading a running process's, which
    /// took the whole test process down once a worker outlived its test's deadline).
    var exitStatus: Int32? { hasExited ? process.terminationStatus : nil }

    /// Waits for a line containing `text` in its output; false if it ended without one, or the
    /// wait's deadline or the test's time limit came first.
    func logged(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await logged(sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Waits until its output satisfies `condition`; false if it ended first, or the wait's
    /// deadline or the test's time limit came first.
    func logged(sourceLocation: SourceLocation = #_sourceLocation, where condition: (String) -> Bool) async -> Bool {
        await events.until(sourceLocation: sourceLocation) { condition(output) || hasExited } && condition(output)
    }

    /// How much it has written so far (UTF-8 bytes): a mark for `heldNothingAndClaimedNothing(after:)`.
    var outputLength: Int { output.utf8.count }

    /// Waits until, past `mark`, it logged a claim round that found nothing while it held no job
    /// and had room (run it with `--log-level debug`): what proves a pause or a cap holds, by an
    /// event rather than by a sleep that saw nothing happen.
    func heldNothingAndClaimedNothing(after mark: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await logged(sourceLocation: sourceLocation) { output in
            String(decoding: output.utf8.dropFirst(mark), as: UTF8.self).split(separator: "\n")
                .contains { $0.contains("nothing to claim") && $0.contains("in_flight=0") }
        }
    }

    /// The port of the metrics endpoint, from the JSON log line announcing it (run the process
    /// with `--metrics-port 0 --log-format json` and a log level of notice or lower); nil if it
    /// ended without announcing one.
    func announcedMetricsPort(key: String = "metrics_port", sourceLocation: SourceLocation = #_sourceLocation) async -> Int? {
        func announced() -> Int? {
            output.split(separator: "\n").lazy.compactMap { line -> Int? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else { return nil }
                return object[key].flatMap(Int.init)
            }.first
        }
        _ = await events.until(sourceLocation: sourceLocation) { announced() != nil || hasExited }
        return announced()
    }

    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }
    func terminate() { Foundation.kill(process.processIdentifier, SIGTERM) }
    /// Freezes the process (SIGSTOP): alive, but doing nothing until `resume`, as a worker
    /// starved of CPU, however fast the machine.
    func pause() { Foundation.kill(process.processIdentifier, SIGSTOP) }
    func resume() { Foundation.kill(process.processIdentifier, SIGCONT) }

    /// Waits for the process to end; false if the wait's deadline or the test's time limit came first.
    func waitForExit(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await events.until(sourceLocation: sourceLocation) { hasExited }
    }

    /// Waits for the process to end, at most `seconds`, where that bound is what a test asserts
    /// (a shutdown within its grace period) or a clean-up's patience. Waits even in a cancelled
    /// test: a clean-up after a time limit still lets its workers go.
    func waitForExit(seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let timer = Task { [events] in
            try? await Task.sleep(until: deadline)
            events.bump()
        }
        defer { timer.cancel() }
        return await Task { [self] in await events.until(within: nil) { hasExited || ContinuousClock.now >= deadline } && hasExited }.value
    }

    /// Waits for the process to end; when the test's time limit ends the wait first, records an
    /// issue with the end of its log (what it was doing then is the bug report: a run that fails
    /// once under load cannot be asked again) and returns false.
    @discardableResult
    func expectExit(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        if await waitForExit() { return true }
        Issue.record(
            "the worker (pid \(pid)) had not exited when the test's time limit came; its log ends:\n\(OutputExcerpt.of(output, limit: 4000))",
            sourceLocation: sourceLocation)
        return false
    }

    /// SIGTERM to each (and SIGCONT, for one a failed test left paused), then waits up to 10 s
    /// for each to exit. One still finishing its jobs in hand is left to end on its own (a test
    /// reads its exit status later); `deinit` kills what is left.
    static func stopAll(_ workers: [WorkerProcess]) async {
        workers.forEach {
            $0.terminate(); $0.resume()
        }
        for worker in workers { _ = await worker.waitForExit(seconds: 10) }
    }

    deinit {
        if process.isRunning { kill() }
    }

    /// The process ended, and its output is all in the log: shared with the handlers that learn each.
    private final class Ends: Sendable {
        let state = Mutex((terminated: false, outputCopied: false))
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
        let (succeeded, dead, running, available, results, one) = try #require(
            try await Postgres.Database(conninfo: conninfo, name: "test-census").rows(
                """
                SELECT count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                       count(*) FILTER (WHERE state = 'dead') AS dead,
                       count(*) FILTER (WHERE state = 'running') AS running,
                       count(*) FILTER (WHERE state = 'available') AS available,
                       (SELECT count(*) FROM discern.results) AS results,
                       (SELECT count(*) FROM (SELECT job_id FROM discern.results GROUP BY job_id HAVING count(*) = 1) AS one) AS one
                FROM discern.jobs
                """, as: Int.self, Int.self, Int.self, Int.self, Int.self, Int.self
            ).first)
        return QueueCensus(
            succeeded: succeeded, dead: dead, running: running, available: available, results: results, jobsWithOneResult: one)
    }
}
