/// The rows of one statement, copied out of the `PGresult` so no C memory outlives the call.
public struct Rows: Sendable, Sequence {
    public let columns: [String]
    public let values: [[String?]]
    /// Rows touched by INSERT/UPDATE/DELETE, from `PQcmdTuples`.
    public let affected: Int

    public var count: Int { values.count }
    public var first: Row? { values.first.map { Row(columns: columns, values: $0) } }

    public struct Iterator: IteratorProtocol {
        let columns: [String]
        var remaining: IndexingIterator<[[String?]]>
        public mutating func next() -> Row? { remaining.next().map { Row(columns: columns, values: $0) } }
    }

    public func makeIterator() -> Iterator {
        Iterator(columns: columns, remaining: values.makeIterator())
    }
}

/// One row, decoded by column name. A missing column or a malformed value is a
/// `decodeFailed` error naming the column, never a crash.
public struct Row: Sendable {
    let columns: [String]
    let values: [String?]

    public func optionalString(_ column: String) throws -> String? {
        guard let index = columns.firstIndex(of: column) else {
            throw PostgresError(.decodeFailed, "no column named \(column) in the result")
        }
        return values[index]
    }

    public func string(_ column: String) throws -> String {
        guard let value = try optionalString(column) else {
            throw PostgresError(.decodeFailed, "column \(column) is NULL")
        }
        return value
    }

    public func optionalInt(_ column: String) throws -> Int? {
        guard let text = try optionalString(column) else { return nil }
        guard let value = Int(text) else {
            throw PostgresError(.decodeFailed, "column \(column) is not an integer: \(text.prefix(40))")
        }
        return value
    }

    public func int(_ column: String) throws -> Int {
        guard let value = try optionalInt(column) else {
            throw PostgresError(.decodeFailed, "column \(column) is NULL")
        }
        return value
    }

    public func optionalDouble(_ column: String) throws -> Double? {
        guard let text = try optionalString(column) else { return nil }
        guard let value = Double(text) else {
            throw PostgresError(.decodeFailed, "column \(column) is not a number: \(text.prefix(40))")
        }
        return value
    }

    public func double(_ column: String) throws -> Double {
        guard let value = try optionalDouble(column) else {
            throw PostgresError(.decodeFailed, "column \(column) is NULL")
        }
        return value
    }

    public func optionalBool(_ column: String) throws -> Bool? {
        switch try optionalString(column) {
        case nil: return nil
        case "t", "true": return true
        case "f", "false": return false
        case let other?: throw PostgresError(.decodeFailed, "column \(column) is not a boolean: \(other)")
        }
    }

    public func bool(_ column: String) throws -> Bool {
        guard let value = try optionalBool(column) else {
            throw PostgresError(.decodeFailed, "column \(column) is NULL")
        }
        return value
    }
}
