/// How discern uses each session it opens, beyond the conninfo.
public struct SessionOptions: Sendable {
    /// libpq's `options` (e.g. `-c jit=off`), unless the conninfo sets its own. A pooler such as
    /// PgBouncer refuses unknown startup parameters: leave it nil behind one.
    public var serverOptions: String?
    /// Whether hot statements are prepared once per session (`PQprepare`). A transaction-mode
    /// pooler hands each transaction to any server session, where the name is unknown
    /// (PgBouncer before 1.21): then every statement is sent with `PQexecParams`, whose unnamed
    /// statement lives only as long as the call.
    public var preparedStatements: Bool

    public init(serverOptions: String? = nil, preparedStatements: Bool = true) {
        self.serverOptions = serverOptions
        self.preparedStatements = preparedStatements
    }
}

/// How a URL reaches PostgreSQL: directly (or through a session-mode pooler), or through a
/// transaction-mode pooler such as PgBouncer, where a session lasts one transaction.
public enum PoolMode: String, Sendable, CaseIterable {
    case direct, transaction
}

extension SessionOptions {
    /// Behind a transaction-mode pooler: no prepared statements, no startup options.
    public init(poolMode: PoolMode, serverOptions: String? = nil) {
        self.init(serverOptions: poolMode == .direct ? serverOptions : nil, preparedStatements: poolMode == .direct)
    }
}
