import Foundation
import Postgres
import SQLSchema
import Synchronization

/// The read model's way to PostgreSQL, for the console and the CLI alike: a few connections,
/// each on its own dedicated thread (no libpq call on the cooperative pool), taken in turn. Each
/// view asks PostgreSQL for one JSON document (json_build_object keeps numbers numbers and times
/// ISO 8601), decoded into the Codable struct that the console renders as HTML, `/api/` returns
/// and the CLI prints as a table or as JSON: one query, one shape, every rendering.
public final class QueueReader: Sendable {
    private let connections: [Database]
    private let next = Counter()
    /// Whether this role may read the services' raw answers (the reader role may not).
    public let canReadRawAnswers: Bool

    public init(conninfo: String, connections count: Int = 4, name: String = "discern-console") async throws {
        connections = (0..<max(1, count)).map { Database(conninfo: conninfo, name: "\(name)-\($0)") }
        canReadRawAnswers = try await connections[0].withConnection { connection in
            try connection.run(Queries.QueueReader.CanReadRawAnswers()).first?.ok ?? false
        }
    }

    /// One connection, in turn.
    private var database: Database { connections[next.increment() % connections.count] }

    /// No view or action may hold the database longer than this (`SET LOCAL`, so it works
    /// through a transaction pooler too): the readers' own connections, apart from the
    /// workers', and never a query that runs on after its reader has gone.
    public static let statementTimeout = "10s"

    /// Runs a query whose one row has one column `doc` holding JSON, and decodes it. JIT off
    /// (`Connection.reading`): compiling a view's query costs more than running it.
    func document<T: Decodable & Sendable, Statement: TypedStatement>(_ type: T.Type, _ statement: Statement) async throws -> T
    where Statement.Output: DocumentRow {
        try decodeDocument(T.self, try await reading { try $0.run(statement).first?.doc })
    }

    private func decodeDocument<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw ReadError.notFound }
        return try Self.decoder.decode(T.self, from: Data(text.utf8))
    }

    /// Runs `body` in a transaction under the timeout: a view made of several queries. It
    /// writes nothing: the console's actions go through a connection of their own.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await database.withConnection { try $0.reading(statementTimeout: Self.statementTimeout, body) }
    }

    /// Reads the views' documents, which name their fields after the database's columns, snake
    /// case. The columns that name a job's service keep the word before 0.11, `backend`; the
    /// values say `service` (docs/design.md, "Glossary"), and so does every document written.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let name = camelCase(path.last?.stringValue ?? "")
            return DocumentKey(columnNames[name] ?? name)
        }
        return decoder
    }()

    static let columnNames = ["backend": "service", "backends": "services", "productionBackend": "productionService"]

    /// `convertFromSnakeCase` for one key: `error_kind` reads `errorKind`.
    static func camelCase(_ key: String) -> String {
        let words = key.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = words.first, !key.hasPrefix("_"), !key.hasSuffix("_") else { return key }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    struct DocumentKey: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// How every view is written as JSON, by `/api/` and by the CLI's `--format json` alike.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// What a view can answer besides its document.
public enum ReadError: Error, Equatable, CustomStringConvertible {
    /// No such job, result or batch (it may have been pruned).
    case notFound

    public var description: String { "not found: it may have been pruned" }
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

extension QueueReader {
    /// The original file of a result, for its thumbnail.
    public func imagePath(resultID: Int) async throws -> String? {
        try await database.withConnection { connection in
            try connection.run(Queries.QueueReader.ResultImagePath(result: resultID)).first?.imagePath
        }
    }

    /// PostgreSQL answers (the console's /healthz).
    public func isReachable() async -> Bool {
        (try? await database.withConnection { try $0.execute(Queries.QueueReader.Ping()) }) != nil
    }

    /// The file of a job with no result (waiting, dead of a service's error), for its thumbnail.
    public func imagePath(jobID: Int) async throws -> String? {
        try await database.withConnection { connection in
            try connection.run(Queries.QueueReader.JobImagePath(job: jobID)).first?.imagePath
        }
    }
}
