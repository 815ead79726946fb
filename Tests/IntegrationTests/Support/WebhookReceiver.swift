import Foundation

/// scripts/webhook-receiver.py as a process: a webhook receiver on loopback that checks
/// each signature itself (Python's hmac, apart from discern's code) and records what arrived.
/// `stop()` takes it away (connections refused); `start()` brings it back on the same port.
final class WebhookReceiver: Sendable {
    let secret: String
    private let server: ScriptServer

    /// The URL workers are given: its path carries a token, as a Slack webhook's does, which
    /// must appear in no log and no row.
    static let token = "T0KEN-\(UUID().uuidString.prefix(8))"
    var url: String { "http://127.0.0.1:\(server.port)/hook/\(Self.token)" }

    /// A receiver not yet listening: its port is held (`PortReservation`) so workers can be
    /// pointed at it before it starts, and are refused until it does.
    init(folder: URL) throws {
        let secret = "hook-secret-\(UUID().uuidString.prefix(12))"
        self.secret = secret
        server = try ScriptServer(folder: folder, script: "webhook-receiver.py", environment: ["DISCERN_WEBHOOK_SECRET": secret])
    }

    func start() async throws { try await server.start() }
    func stop() async { await server.stop() }

    /// Every request received so far, oldest first.
    var received: [[String: Any]] { server.received }
}
