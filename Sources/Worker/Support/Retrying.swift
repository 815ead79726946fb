import Logging
import Postgres

/// Retries database calls that failed for transient reasons (lost connection, failover,
/// serialization), with growing pauses; other errors are thrown at once.
enum Retrying {
    static func database<T: Sendable>(logger: Logger, _ what: String, attempts: Int = 8,
                                      _ body: @Sendable () async throws -> T) async throws -> T {
        var pause = 0.2
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where error.isRetryable && attempt < attempts {
                logger.warning("database call failed; retrying", metadata: [
                    "operation": "\(what)", "attempt": "\(attempt)", "error": "\(error)",
                ])
                try await Task.sleep(for: .seconds(pause))
                pause = min(pause * 2, 10)
                attempt += 1
            }
        }
    }
}
