import Foundation
import Testing

/// `discern simulate` as a process of its own, as a worker meets a service: over the network,
/// and away when a test takes it away. `stop()` kills it (connections refused, calls in flight
/// cut); `start` brings it back on the same port, with the same S3 signing secret, so upload
/// URLs it handed out before still verify, as they would at S3. Its own process also keeps it
/// off the test process's cooperative pool, which sixty tests at once can starve for seconds.
final class SimulatorProcess: @unchecked Sendable {
    private let folder: URL
    private let secret = "sim-secret-\(UUID().uuidString.prefix(12))"
    private var process: WorkerProcess?
    private(set) var port = 0

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(folder: URL) { self.folder = folder }

    /// Starts it with `arguments` (fault flags), on the port it had, or a free one the first
    /// time; returns once it listens.
    func start(_ arguments: [String] = []) async throws {
        let urlFile = folder.appendingPathComponent("simulator-\(UUID().uuidString.prefix(8)).url")
        let started = try WorkerProcess(
            conninfo: "", simulatorURL: "", logFolder: folder,
            arguments: ["--port", "\(port)", "--url-file", urlFile.path, "--log-level", "warning"] + arguments,
            environment: ["DISCERN_SIM_SECRET_ACCESS_KEY": secret], plainArguments: true, command: "simulate")
        process = started
        // Waits for what it means: the simulator wrote its address once it listened.
        let listening = await Poll.until {
            FileManager.default.fileExists(atPath: urlFile.path) || !started.isRunning
        }
        guard listening, let url = try? String(contentsOf: urlFile, encoding: .utf8),
            let bound = URLComponents(string: url.trimmingCharacters(in: .whitespacesAndNewlines))?.port
        else {
            throw TestSetupError("the simulator did not start: \(started.output.suffix(800))")
        }
        port = bound
    }

    /// Kills it at once: the port refuses connections until `start`.
    func stop() async {
        guard let process else { return }
        process.kill()
        _ = await process.waitForExit()
        self.process = nil
    }

    /// Its stats (`GET /_sim/stats`), nil while it is stopped.
    func stats() async -> [String: Any]? {
        guard process != nil else { return nil }
        let answer = await RawHTTP.get(port: port, path: "/_sim/stats")
        return (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any]
    }

    /// Calls a route received (`discerner.analyze`), 0 while it is stopped.
    func calls(_ route: String) async -> Int {
        ((await stats())?["routes"] as? [String: Any]).flatMap { ($0[route] as? [String: Any])?["calls"] as? Int } ?? 0
    }

    /// Lets the analyses a `--hold-analyses` simulator holds go on, and later ones through;
    /// returns how many were held.
    func releaseAnalyses() async -> Int {
        let answer = await RawHTTP.post(port: port, path: "/_sim/release-analyses", body: "")
        return ((try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any])?["released"] as? Int ?? 0
    }

    deinit { process?.kill() }
}
