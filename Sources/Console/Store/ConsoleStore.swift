import Foundation
import Postgres
import Synchronization

/// The console's way to PostgreSQL: a few connections, each on its own dedicated thread (no
/// libpq call on the cooperative pool), taken in turn. Pages ask PostgreSQL for one JSON
/// document each (json_build_object keeps numbers numbers and times ISO 8601), decoded into the
/// Codable structs the pages render and the `/api/` twins return as they are.
public final class ConsoleStore: Sendable {
    private let connections: [Database]
    private let next = Counter()
    /// Whether this role may read the services' raw answers (the reader role may not).
    public let canReadRawAnswers: Bool

    public init(conninfo: String, connections count: Int = 4) async throws {
        connections = (0..<max(1, count)).map { Database(conninfo: conninfo, name: "discern-console-\($0)") }
        canReadRawAnswers = try await connections[0].withConnection { connection in
            try connection.query("SELECT has_column_privilege('discern.results', 'raw_response', 'SELECT') AS ok").first?.bool("ok") ?? false
        }
    }

    /// One connection, in turn.
    var database: Database { connections[next.increment() % connections.count] }

    /// No page or action may hold the database longer than this (`SET LOCAL`, so it works
    /// through a transaction pooler too): the console's own connections, apart from the
    /// workers', and never a query that runs on after its reader has gone.
    static let statementTimeout = "10s"

    /// Runs a query whose one row has one column `doc` holding JSON, and decodes it. JIT off
    /// (`Connection.reading`): compiling a page's query costs more than running it.
    func document<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> T {
        let text = try await database.withConnection { connection in
            try connection.reading { connection in
                try connection.query("SELECT set_config('statement_timeout', $1, true)", [Self.statementTimeout])
                return try connection.query(sql, parameters).first?.optionalString("doc")
            }
        }
        guard let text else { throw ConsoleError.notFound }
        return try Self.decoder.decode(T.self, from: Data(text.utf8))
    }

    /// Runs a statement in a transaction (an action), returning what `body` returns.
    func change<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await database.withConnection { connection in
            try connection.transaction { connection in
                try connection.query("SELECT set_config('statement_timeout', $1, true)", [Self.statementTimeout])
                return try body(connection)
            }
        }
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
}

/// What the console can answer besides a page.
enum ConsoleError: Error, Equatable {
    case notFound
}

/// A thread-safe counter for round-robin choices.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int {
        value.withLock {
            $0 &+= 1
            return $0 & Int.max
        }
    }
}

extension ConsoleStore {
    /// The original file of a result, for its thumbnail.
    func imagePath(resultID: Int) async throws -> String? {
        try await database.withConnection { connection in
            try connection.query("SELECT image_path FROM discern.results WHERE id = $1", [resultID]).first?.string("image_path")
        }
    }
}
