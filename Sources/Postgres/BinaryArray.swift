import Foundation

/// An array parameter in PostgreSQL's binary format, for columns of a batch expanded with
/// `unnest`: the server takes each element as it is instead of parsing text or JSON, which
/// measured as the largest single cost of the queue's batched completion.
///
/// The element type must be exactly the statement's `$n::type[]`: `Int` for bigint, `Int32`
/// for integer, `Int16` for smallint, `Double` for double precision, `Bool` for boolean,
/// `String` for text and `JSONText` for jsonb. PostgreSQL refuses any other pairing.
public struct BinaryArray<Element: BinaryArrayElement>: PostgresEncodable {
    public let elements: [Element?]

    public init(_ elements: [Element?]) { self.elements = elements }

    /// The same array as a text literal (`{"a",NULL}`).
    public var postgresText: String { postgresArrayLiteral(elements.map { $0?.postgresText }) }

    /// array_send's layout: dimensions, a has-nulls flag, the element type, then each element
    /// as a length (-1 for NULL) and its bytes, all big-endian.
    public var postgresBinary: [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.count * 12)
        bytes.appendBigEndian(Int32(elements.isEmpty ? 0 : 1))
        bytes.appendBigEndian(Int32(elements.contains { $0 == nil } ? 1 : 0))
        bytes.appendBigEndian(Element.postgresTypeOID)
        if !elements.isEmpty {
            bytes.appendBigEndian(Int32(elements.count))
            bytes.appendBigEndian(Int32(1))
        }
        for element in elements {
            guard let element else {
                bytes.appendBigEndian(Int32(-1))
                continue
            }
            let lengthAt = bytes.count
            bytes.appendBigEndian(Int32(0))
            element.appendPostgresBinary(to: &bytes)
            let length = UInt32(bytes.count - lengthAt - 4)
            for offset in 0..<4 { bytes[lengthAt + offset] = UInt8(truncatingIfNeeded: length >> (24 - 8 * offset)) }
        }
        return bytes
    }
}

extension BinaryArray: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element?...) { self.init(elements) }
}

/// A type `BinaryArray` can carry: its PostgreSQL type and its binary form.
public protocol BinaryArrayElement: PostgresEncodable {
    static var postgresTypeOID: UInt32 { get }
    func appendPostgresBinary(to bytes: inout [UInt8])
}

/// JSON text bound for a jsonb column.
public struct JSONText: BinaryArrayElement {
    public let text: String
    public init(_ text: String) { self.text = text }
    public var postgresText: String { text }
    public static let postgresTypeOID: UInt32 = 3802
    /// jsonb's binary form is a version byte (1) and the JSON text.
    public func appendPostgresBinary(to bytes: inout [UInt8]) {
        bytes.append(1)
        bytes.append(contentsOf: text.utf8)
    }
}

extension Int: BinaryArrayElement {
    public static let postgresTypeOID: UInt32 = 20
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.appendBigEndian(Int64(self)) }
}

extension Int32: BinaryArrayElement {
    public static let postgresTypeOID: UInt32 = 23
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.appendBigEndian(self) }
}

extension Int16: BinaryArrayElement {
    public var postgresText: String { String(self) }
    public static let postgresTypeOID: UInt32 = 21
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.appendBigEndian(self) }
}

extension Double: BinaryArrayElement {
    public static let postgresTypeOID: UInt32 = 701
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.appendBigEndian(bitPattern) }
}

extension Bool: BinaryArrayElement {
    public static let postgresTypeOID: UInt32 = 16
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.append(self ? 1 : 0) }
}

extension String: BinaryArrayElement {
    public static let postgresTypeOID: UInt32 = 25
    public func appendPostgresBinary(to bytes: inout [UInt8]) { bytes.append(contentsOf: utf8) }
}

extension [UInt8] {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
