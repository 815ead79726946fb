import DedicatedThreads

/// An async handle to one PostgreSQL connection that lives on its own dedicated thread.
///
/// All libpq calls for this connection run on that thread, never on Swift's cooperative pool.
/// A lost connection is replaced on the next call; the error that revealed the loss is still
/// thrown, so the caller decides whether to retry.
public final class Database: @unchecked Sendable {
    public let conninfo: String
    private let applicationName: String
    private let session: SessionOptions
    private let thread: ThreadPool
    // Touched only from `thread`, which runs one closure at a time.
    private var connection: Connection?

    /// - Parameters:
    ///   - name: names the thread, and the connection in `pg_stat_activity`.
    ///   - session: server options and prepared statements for every connection it opens.
    public init(conninfo: String, name: String = "discern", session: SessionOptions = SessionOptions()) {
        self.conninfo = conninfo
        self.applicationName = name
        self.session = session
        self.thread = ThreadPool(name: name, threads: 1)
    }

    deinit { thread.shutdown() }

    /// Runs `body` with the connection, on the connection's thread.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await thread.run { [self] in
            let connection = try self.liveConnection()
            do {
                return try body(connection)
            } catch let error as PostgresError where !connection.isHealthy {
                self.connection = nil
                throw PostgresError(.connectionLost, error.message, sqlState: error.sqlState)
            } catch let error as PostgresError where error.needsNewConnection {
                self.connection = nil
                throw error
            }
        }
    }

    /// Runs `body` in one transaction on the connection's thread (`Connection.transaction`):
    /// an operator's action, all of it or none.
    @discardableResult
    public func transaction<T: Sendable>(
        statementTimeout: String? = nil, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await withConnection { try $0.transaction(statementTimeout: statementTimeout, body) }
    }

    private func liveConnection() throws -> Connection {
        if let connection, connection.isHealthy { return connection }
        connection = nil
        let fresh = try Connection(conninfo: conninfo, applicationName: applicationName, session: session)
        connection = fresh
        return fresh
    }
}
