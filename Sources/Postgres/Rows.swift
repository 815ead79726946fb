/// The rows of one statement, copied out of the `PGresult` so no C memory outlives the call.
struct Rows: Sendable, Sequence {
    let columns: [String]
    let values: [[String?]]
    /// Rows touched by INSERT/UPDATE/DELETE, from `PQcmdTuples`.
    let affected: Int

    var count: Int { values.count }
    var first: Row? { values.first.map { Row(columns: columns, values: $0) } }

    struct Iterator: IteratorProtocol {
        let columns: [String]
        var remaining: IndexingIterator<[[String?]]>
        mutating func next() -> Row? { remaining.next().map { Row(columns: columns, values: $0) } }
    }

    func makeIterator() -> Iterator {
        Iterator(columns: columns, remaining: values.makeIterator())
    }
}

/// One row of a result. A missing column, a NULL where none fits, or a malformed value is a
/// `decodeFailed` error naming the column, never a crash.
public struct Row: Sendable {
    let columns: [String]
    let values: [String?]

    /// The column named `name`, as `type`: for the typed statements the BundleSQL plugin
    /// generates, which read each declared column by its name. Nothing else reads a row by a
    /// column's name (scripts/check-source.sh).
    package func column<Value: PostgresDecodable>(_ name: String, as type: Value.Type = Value.self) throws -> Value {
        guard let index = columns.firstIndex(of: name) else {
            throw PostgresError(.decodeFailed, "no column named \(name) in the result")
        }
        return try Value.decode(values[index], column: name)
    }

    /// Every column, in order, as `types`: a row of a statement written inline (`SQL`).
    public func decode<each Value: PostgresDecodable>(_ types: repeat (each Value).Type) throws -> (repeat each Value) {
        var wanted = 0
        for _ in repeat each types { wanted += 1 }
        guard wanted == values.count else {
            throw PostgresError(
                .decodeFailed,
                "the row has \(values.count) columns (\(columns.joined(separator: ", "))), \(wanted) types were asked for"
                    + (wanted == 0 ? ": a statement whose rows are not read is execute()d" : ""))
        }
        var index = 0
        func next<Column: PostgresDecodable>(_ type: Column.Type) throws -> Column {
            defer { index += 1 }
            return try Column.decode(values[index], column: columns[index])
        }
        return (repeat try next(each types))
    }
}
