import Foundation
import Testing

/// One of scripts/'s Python servers as a process on loopback (the webhook receiver, the OTLP
/// receiver): started on a port held beforehand (`PortReservation`), so clients can be pointed
/// at it first, and appending what it received to a JSON-lines log. `stop()` takes it away
/// (connections refused); `start()` brings it back on the same port, which nobody took meanwhile.
final class ScriptServer: @unchecked Sendable {
    private let folder: URL
    private let script: String
    private let python: String
    private let arguments: [String]
    private let environment: [String: String]
    private var process: Process?
    let log: URL
    /// Held from here to the end: the port stays this server's while it is away.
    private let reservation: PortReservation
    var port: Int { reservation.port }

    /// - Parameter python: the interpreter; Debian's by default (the standard library is all the
    ///   webhook receiver needs, and a version manager's shim would stand between the test and
    ///   the process it signals).
    init(folder: URL, script: String, python: String = "/usr/bin/python3", arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.folder = folder
        self.script = script
        self.python = python
        self.arguments = arguments
        self.environment = environment
        log = folder.appendingPathComponent("\(script)-\(UUID().uuidString.prefix(8)).jsonl")
        reservation = try PortReservation()
    }

    func start() async throws {
        let urlFile = folder.appendingPathComponent("\(script)-\(UUID().uuidString.prefix(8)).url")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments =
            [
                ChaosJobs.repository.appendingPathComponent("scripts/\(script)").path,
                "--port", "\(port)", "--url-file", urlFile.path, "--log", log.path
            ] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard await Poll.until({ FileManager.default.fileExists(atPath: urlFile.path) || !process.isRunning }),
            process.isRunning
        else {
            throw TestSetupError("scripts/\(script) did not start on port \(port)")
        }
    }

    /// Kills it (SIGKILL: the test process may hand its children SIGTERM ignored) and waits,
    /// polling: `waitUntilExit` blocks a thread of the cooperative pool, and two tests doing so
    /// at once on 2 cores stopped the whole test run.
    func stop() async {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<600 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        self.process = nil
    }

    /// POSTs `settings` as JSON to `path`: a control endpoint of the server's, which must take it.
    func post(_ path: String, _ settings: [String: Any]) async throws {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: settings), as: UTF8.self)
        let answer = await RawHTTP.post(port: port, path: path, body: body)
        guard answer.status == 200 else { throw TestSetupError("scripts/\(script) refused \(body) at \(path): HTTP \(answer.status)") }
    }

    /// Every line of its log so far, oldest first.
    var received: [[String: Any]] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    deinit { if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
