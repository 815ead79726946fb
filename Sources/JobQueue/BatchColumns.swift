import Foundation
import Postgres

/// One column of a batch expanded with `unnest`: its name, SQL type and how to take its values
/// from the batch's rows, declared together so a statement and its parameters cannot drift
/// apart. Values go as typed arrays in PostgreSQL's binary format, so the server reads a batch
/// without parsing it: parsing a JSON batch would be a batch statement's largest cost (bench/queue).
struct BatchColumn<Row>: Sendable {
    let name: String
    let sqlType: String
    /// The type it is stored as when that is not `sqlType` (a text[] sent as its literal).
    var storedType: String? = nil
    let values: @Sendable ([Row]) -> any PostgresEncodable

    static func text(_ name: String, _ value: @escaping @Sendable (Row) -> String?) -> Self {
        Self(name: name, sqlType: "text") { rows in BinaryArray(rows.map { value($0).map(StoredText.clean) }) }
    }

    /// A text[] per row. Rows' arrays differ in length, which a two-dimensional array cannot
    /// hold: each row's goes as an array literal, cast back in the statement.
    static func textArray(_ name: String, _ value: @escaping @Sendable (Row) -> [String]) -> Self {
        Self(name: name, sqlType: "text", storedType: "text[]") { rows in BinaryArray(rows.map { value($0).map(StoredText.clean).postgresText }) }
    }

    static func json(_ name: String, _ value: @escaping @Sendable (Row) -> String) -> Self {
        Self(name: name, sqlType: "jsonb") { rows in BinaryArray(rows.map { JSONText(StoredJSON.storable(value($0))) }) }
    }

    static func bigint(_ name: String, _ value: @escaping @Sendable (Row) -> Int) -> Self {
        Self(name: name, sqlType: "bigint") { rows in BinaryArray(rows.map(value)) }
    }

    static func optionalBigint(_ name: String, _ value: @escaping @Sendable (Row) -> Int?) -> Self {
        Self(name: name, sqlType: "bigint") { rows in BinaryArray(rows.map(value)) }
    }

    static func integer(_ name: String, _ value: @escaping @Sendable (Row) -> Int) -> Self {
        Self(name: name, sqlType: "integer") { rows in BinaryArray(rows.map { Int32(clamping: value($0)) }) }
    }

    static func smallint(_ name: String, _ value: @escaping @Sendable (Row) -> Int?) -> Self {
        Self(name: name, sqlType: "smallint") { rows in BinaryArray(rows.map { value($0).map { Int16(clamping: $0) } }) }
    }

    static func boolean(_ name: String, _ value: @escaping @Sendable (Row) -> Bool) -> Self {
        Self(name: name, sqlType: "boolean") { rows in BinaryArray(rows.map(value)) }
    }

    /// NaN and infinity are stored as NULL: no dashboard can use them.
    static func double(_ name: String, _ value: @escaping @Sendable (Row) -> Double?) -> Self {
        Self(name: name, sqlType: "double precision") { rows in
            BinaryArray(rows.map { value($0).flatMap { $0.isFinite ? $0 : nil } })
        }
    }
}

extension Array {
    /// `unnest($first::t1[], $2::t2[], ...) AS alias(c1, c2, ...)` for these columns.
    func unnest<Row>(firstParameter: Int, alias: String) -> String where Element == BatchColumn<Row> {
        let arrays = enumerated().map { "$\($0.offset + firstParameter)::\($0.element.sqlType)[]" }.joined(separator: ", ")
        return "unnest(\(arrays)) AS \(alias)(\(map(\.name).joined(separator: ", ")))"
    }

    /// The columns' names, and their values read from `alias` (cast to the stored type), without
    /// `job_id`, which ties a row to its job and is not stored as itself.
    func storedNames<Row>() -> String where Element == BatchColumn<Row> {
        filter { $0.name != "job_id" }.map(\.name).joined(separator: ", ")
    }

    func storedValues<Row>(from alias: String) -> String where Element == BatchColumn<Row> {
        filter { $0.name != "job_id" }.map { "\(alias).\($0.name)" + ($0.storedType.map { "::\($0)" } ?? "") }.joined(separator: ", ")
    }

    func parameters<Row>(_ rows: [Row]) -> [any PostgresEncodable] where Element == BatchColumn<Row> {
        map { $0.values(rows) }
    }
}
