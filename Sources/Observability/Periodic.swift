import Logging
import ServiceLifecycle

/// The body every periodic service shares: a turn, then a pause, until the service group shuts
/// down gracefully or the task is cancelled. A pause ends at once on graceful shutdown.
public enum Periodic {
    /// - Parameters:
    ///   - seconds: the pause after each turn.
    ///   - pauseFirst: pause before the first turn (a heartbeat right after registering is wasted).
    public static func run(every seconds: Double, pauseFirst: Bool = false, _ turn: () async -> Void) async {
        if pauseFirst { await pause(seconds: seconds) }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await turn()
            await pause(seconds: seconds)
        }
    }

    /// A turn that may fail: its error is logged as a warning, `failure` saying what failed,
    /// and the next turn tries again.
    public static func run(every seconds: Double, logger: Logger, failure: String, _ turn: () async throws -> Void) async {
        await run(every: seconds) {
            do {
                try await turn()
            } catch {
                logger.warning("\(failure); will try again", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// Sleeps `seconds`, or less if the service group begins a graceful shutdown.
func pause(seconds: Double) async {
    _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(seconds)) }
}
