import Backends
import Foundation
import Logging
import Postgres

/// Rate limits shared by every worker process: a token bucket per key in `discern.rate_limits`
/// (sql/migrations/0003). Each call to a limited service first takes a token there.
public final class PostgresRateGate: RateGate {
    private let database: Database
    private let logger: Logger

    public init(conninfo: String, logger: Logger) {
        self.database = Database(conninfo: conninfo, name: "discern-ratelimit")
        self.logger = logger
    }

    public func acquire(_ key: String) async throws(BackendError) {
        while true {
            let wait: Double
            do {
                wait = try await Retrying.database(logger: logger, "take a rate-limit token") {
                    try await self.database.withConnection { connection in
                        try connection.query("SELECT discern.take_rate_token($1) AS wait", [key]).first?.optionalDouble("wait") ?? 0
                    }
                }
            } catch {
                throw BackendError(.rateLimiterUnavailable, "could not take a rate-limit token for \(key): \(error)", retryable: true)
            }
            guard wait > 0 else { return }
            WorkerMetrics.rateLimitWait(key: key, seconds: min(wait, 2))
            do {
                // Short naps: a raised limit (UPDATE discern.rate_limits) applies quickly.
                try await Task.sleep(for: .seconds(min(wait, 2)))
            } catch {
                throw BackendError(.network, "cancelled while waiting for the \(key) rate limit", retryable: true)
            }
        }
    }

    public func rateLimited(_ key: String) async {
        do {
            _ = try await database.withConnection { try $0.query("SELECT discern.rate_limited($1)", [key]) }
        } catch {
            logger.warning("could not record a 429 in the shared rate limit", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}
