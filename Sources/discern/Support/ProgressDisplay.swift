import Foundation
import JobQueue
import Postgres
import ServiceLifecycle
import Worker

/// A one-line progress bar on standard error for `discern work --drain` at a terminal:
/// done out of total, rate, ETA. Total is what this worker finished plus what is still pending
/// for its backends, so it grows when someone enqueues more.
struct ProgressDisplay: Service {
    let runtime: WorkerRuntime
    let conninfo: String
    let backends: [String]

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    func run() async throws {
        let database = Database(conninfo: conninfo, name: "discern-progress")
        let started = ContinuousClock.now
        var line = ""
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let progress = await runtime.summary()
            let backends = self.backends
            let pending = (try? await database.withConnection { try JobQueue.pendingWork($0, backends: backends) })
            let done = progress.succeeded + progress.dead
            let total = done + (pending.map { $0.ready + $0.retrying + $0.running } ?? 0)
            let elapsed = (ContinuousClock.now - started).components.seconds
            line = Self.render(done: done, total: total, dead: progress.dead, elapsedSeconds: Double(max(elapsed, 1)))
            FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
            try? await Task.sleep(for: .milliseconds(500))
        }
        if !line.isEmpty { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func render(done: Int, total: Int, dead: Int, elapsedSeconds: Double) -> String {
        let share = total > 0 ? Double(done) / Double(total) : 0
        let bar = TerminalProgress.bar(share)
        let rate = Double(done) / elapsedSeconds
        let eta = rate > 0 ? Int(Double(total - done) / rate) : nil
        let etaText = eta.map { String(format: "%d:%02d", $0 / 60, $0 % 60) } ?? "--:--"
        return String(format: "[%@] %d/%d %3.0f%%  %.1f jobs/s  ETA %@%@", bar, done, total, share * 100, rate, etaText,
                      dead > 0 ? "  dead \(dead)" : "")
    }
}
