import Foundation
import JobQueue
import Postgres
import ServiceLifecycle
import Worker

/// A one-line progress bar on standard error for `discern work --drain` at a terminal: done out
/// of total, the rate over the last 30 s, ETA, and what holds the run back when it is a rate
/// limit. Total is what this worker finished plus what is still pending for its services, so it
/// grows when someone enqueues more. Log lines clear it and it is drawn again below them.
struct ProgressDisplay: Service {
    let runtime: WorkerRuntime
    let gate: PostgresRateGate
    /// The worker's queue connection: the bar costs no connection of its own.
    let database: Database
    let services: [String]

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static let window: Duration = .seconds(30)

    func run() async throws {
        var samples: [(at: ContinuousClock.Instant, done: Int)] = []
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let progress = await runtime.summary()
            let services = self.services
            let pending = (try? await database.withConnection { try JobQueue.pendingWork($0, services: services) })
            let done = progress.succeeded + progress.dead
            let now = ContinuousClock.now
            samples.append((now, done))
            // Keep the window, and always two samples to measure between.
            while samples.count > 2, now - samples[0].at > Self.window { samples.removeFirst() }
            let span = (now - samples[0].at).seconds
            let rate = span > 0.5 ? Double(done - samples[0].done) / span : 0
            StandardError.drawBar(
                Self.render(
                    done: done, total: done + (pending.map { $0.ready + $0.retrying + $0.running } ?? 0),
                    dead: progress.dead, rate: rate, limitedBy: gate.limitingKeys()))
            try? await Task.sleep(for: .milliseconds(500))
        }
        StandardError.endBar()
    }

    static func render(done: Int, total: Int, dead: Int, rate: Double, limitedBy keys: [String]) -> String {
        let share = total > 0 ? Double(done) / Double(total) : 0
        let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : nil
        let etaText = eta.map { $0 < 360_000 ? String(format: "%d:%02d", $0 / 60, $0 % 60) : "--:--" } ?? "--:--"
        let limits = keys.isEmpty ? "" : "  limited by \(keys.prefix(2).joined(separator: ", ")) (discern.rate_limits)"
        return String(format: "[%@] %d/%d %3.0f%%  %.1f jobs/s  ETA %@", TerminalProgress.bar(share), done, total, share * 100, rate, etaText)
            + (dead > 0 ? "  dead \(dead)" : "") + limits
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
