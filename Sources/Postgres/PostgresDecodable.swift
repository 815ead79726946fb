/// A value read from one column of a row, in PostgreSQL's text format. A NULL where the type
/// has no room for one, or text that is not the type, is a `decodeFailed` error naming the
/// column, never a crash.
public protocol PostgresDecodable: Sendable {
    static func decode(_ text: String?, column: String) throws -> Self
}

/// A type whose NULL is an error: decoding starts from non-NULL text.
protocol PostgresNonNullDecodable: PostgresDecodable {
    init?(postgresText: String)
    static var postgresTypeName: String { get }
}

extension PostgresNonNullDecodable {
    public static func decode(_ text: String?, column: String) throws -> Self {
        guard let text else { throw PostgresError(.decodeFailed, "column \(column) is NULL") }
        guard let value = Self(postgresText: text) else {
            throw PostgresError(.decodeFailed, "column \(column) is not \(postgresTypeName): \(text.prefix(40))")
        }
        return value
    }
}

extension String: PostgresNonNullDecodable {
    init?(postgresText: String) { self = postgresText }
    static var postgresTypeName: String { "text" }
}

extension Int: PostgresNonNullDecodable {
    init?(postgresText: String) { self.init(postgresText) }
    static var postgresTypeName: String { "an integer" }
}

extension Double: PostgresNonNullDecodable {
    init?(postgresText: String) { self.init(postgresText) }
    static var postgresTypeName: String { "a number" }
}

extension Bool: PostgresNonNullDecodable {
    init?(postgresText: String) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
    static var postgresTypeName: String { "a boolean" }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(_ text: String?, column: String) throws -> Self {
        guard let text else { return nil }
        return try Wrapped.decode(text, column: column)
    }
}
