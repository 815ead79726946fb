import Foundation

/// scripts/webhook-receiver.py as a process: a notification receiver on loopback that checks
/// each signature itself (Python's hmac, apart from discern's code) and records what arrived.
/// `stop()` takes it away (connections refused); `start()` brings it back on the same port.
final class WebhookReceiver: @unchecked Sendable {
    let secret = "hook-secret-\(UUID().uuidString.prefix(12))"
    private let folder: URL
    private let log: URL
    private var process: Process?
    private(set) var port: Int

    /// The URL workers are given: its path carries a token, as a Slack webhook's does, which
    /// must appear in no log and no row.
    static let token = "T0KEN-\(UUID().uuidString.prefix(8))"
    var url: String { "http://127.0.0.1:\(port)/hook/\(Self.token)" }

    /// A receiver not yet listening: its port is chosen (bound and let go) so workers can be
    /// pointed at it before it starts.
    init(folder: URL) throws {
        self.folder = folder
        log = folder.appendingPathComponent("hook-\(UUID().uuidString.prefix(8)).jsonl")
        port = try FreePort.pick()
    }

    func start() async throws {
        let urlFile = folder.appendingPathComponent("hook-\(UUID().uuidString.prefix(8)).url")
        let process = Process()
        // Debian's python3: the standard library is all it needs, and a version manager's shim
        // would stand between the test and the process it signals.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [ChaosJobs.repository.appendingPathComponent("scripts/webhook-receiver.py").path,
                             "--port", "\(port)", "--url-file", urlFile.path, "--log", log.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["DISCERN_NOTIFY_SECRET": secret]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard await ChaosJobs.eventually(seconds: 120, { FileManager.default.fileExists(atPath: urlFile.path) || !process.isRunning }),
              process.isRunning else {
            throw TestSetupError("the webhook receiver did not start on port \(port)")
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

    /// Every request received so far, oldest first.
    var received: [[String: Any]] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    deinit { if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
