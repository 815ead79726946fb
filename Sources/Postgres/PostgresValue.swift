import Foundation

/// A value that travels to PostgreSQL as a query parameter, in text format unless it has a
/// binary form. SQL text is never assembled from values: they always go as `$n` parameters.
public protocol PostgresEncodable: Sendable {
    var postgresText: String { get }
    /// The value in PostgreSQL's binary format, when the type has one here; nil sends text.
    var postgresBinary: [UInt8]? { get }
}

extension PostgresEncodable {
    public var postgresBinary: [UInt8]? { nil }
}

extension String: PostgresEncodable { public var postgresText: String { self } }
extension Int: PostgresEncodable { public var postgresText: String { String(self) } }
extension Int32: PostgresEncodable { public var postgresText: String { String(self) } }
extension Int64: PostgresEncodable { public var postgresText: String { String(self) } }
extension Double: PostgresEncodable { public var postgresText: String { String(self) } }
extension Bool: PostgresEncodable { public var postgresText: String { self ? "true" : "false" } }

extension Array: PostgresEncodable where Element: PostgresEncodable {
    // A closure, not `\.postgresText`: a key path here is built at run time on every call
    // (a completion encodes one array per result).
    public var postgresText: String { postgresArrayLiteral(map { $0.postgresText }) }
}

/// An array literal (`{"a","b",NULL}`) with every element quoted and escaped; nil is NULL.
func postgresArrayLiteral(_ elements: [String?]) -> String {
    var literal = "{"
    for (index, element) in elements.enumerated() {
        if index > 0 { literal += "," }
        guard let element else {
            literal += "NULL"
            continue
        }
        literal += "\""
        for character in element.unicodeScalars {
            if character == "\\" || character == "\"" { literal.unicodeScalars.append("\\") }
            literal.unicodeScalars.append(character)
        }
        literal += "\""
    }
    return literal + "}"
}
