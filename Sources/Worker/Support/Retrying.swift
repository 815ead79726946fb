import Logging
import Postgres

/// Retries database calls that failed for transient reasons (lost connection, failover, a full
/// disk, serialization), with growing pauses up to 10 s; a statement stopped by a lock or
/// statement timeout up to `contentionAttempts` times (about 40 s); other errors are thrown at once.
enum Retrying {
    /// Tries of a statement stopped by a timeout (`PostgresError.isContention`): enough to wait
    /// out another session's lock of a minute or so, without holding jobs forever on a statement
    /// that is slow in itself.
    static let contentionAttempts = 10

    /// - Parameter attempts: how many tries before the error is thrown; `.max` to keep trying
    ///   until the task is cancelled (what a worker has done must be written down once the
    ///   database is back, however long it is away).
    static func database<T: Sendable>(
        logger: Logger, _ what: String, attempts: Int = 8,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        var pause = 0.2
        var attempt = 1
        // Counted apart: a connection lost for a minute must not spend a lock timeout's tries.
        var contended = 0
        while true {
            do {
                return try await body()
            } catch let error as PostgresError
                where (error.isRetryable && attempt < attempts) || (error.isContention && contended + 1 < min(attempts, contentionAttempts))
            {
                if error.isContention { contended += 1 }
                // The first failures, then one in ten: an outage of minutes is a few lines, not hundreds.
                if attempt <= 3 || attempt % 10 == 0 {
                    logger.warning(
                        "database call failed; retrying",
                        metadata: [
                            "operation": "\(what)", "attempt": "\(attempt)", "error": "\(error)"
                        ])
                }
                try await Task.sleep(for: .seconds(pause))
                // Cancelled while a statement was under way (a dedicated thread does not hear it):
                // no new connection is tried, each of which may wait its connect_timeout.
                try Task.checkCancellation()
                pause = min(pause * 2, 10)
                attempt += 1
            }
        }
    }
}
