/// A statement written where it is used (a test's probe, an administrator's one-off command),
/// with every interpolated value sent as a `$n` parameter, never as text:
///
///     try connection.execute("UPDATE discern.jobs SET state = 'dead' WHERE id = \(job)")
///
/// The numbering is the interpolation's: nobody counts `$n` by hand, and a `$1` written into
/// the text is refused when the statement runs. A part that must be SQL itself is either
/// another `SQL` (`\(condition)`, its parameters renumbered) or text the caller made and trusts
/// (`\(unescaped: generatedName)`: a name it generated, never input). The statements discern
/// sends on its own are typed statements of sql/queries/ (`TypedStatement`) instead.
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    public private(set) var text: String
    public private(set) var parameters: [(any PostgresEncodable)?]
    /// A `$n` written by hand into a literal part: refused when the statement runs.
    let handWritten: String?

    public init(stringLiteral literal: String) {
        self.init(stringInterpolation: Interpolation(literal))
    }

    public init(stringInterpolation interpolation: Interpolation) {
        text = interpolation.text
        parameters = interpolation.parameters
        handWritten = interpolation.handWritten
    }

    public struct Interpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        var parameters: [(any PostgresEncodable)?] = []
        var handWritten: String?

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        init(_ literal: String) {
            appendLiteral(literal)
        }

        public mutating func appendLiteral(_ literal: String) {
            if handWritten == nil, let match = literal.firstMatch(of: /\$[0-9]+/) { handWritten = String(match.0) }
            text += literal
        }

        /// A value, sent as the next `$n`; nil is NULL.
        public mutating func appendInterpolation(_ value: (some PostgresEncodable)?) {
            parameters.append(value)
            text += "$\(parameters.count)"
        }

        /// Another statement's text and parameters, its `$n` renumbered after these.
        public mutating func appendInterpolation(_ part: SQL) {
            let offset = parameters.count
            // Longer numbers are none an interpolation made: left as they are (a `$n` written by
            // hand is refused when the statement runs anyway), so no number can overflow here.
            text += part.text.replacing(/\$([0-9]{1,6})\b/) { match in Int(match.1).map { "$\($0 + offset)" } ?? String(match.0) }
            parameters += part.parameters
            handWritten = handWritten ?? part.handWritten
        }

        /// Text that is SQL itself, made by the caller: a database or role name it generated.
        /// Never a value that came from outside.
        public mutating func appendInterpolation(unescaped text: String) {
            appendLiteral(text)
        }
    }
}

extension Connection {
    /// Runs `statement` and says how many rows it changed.
    @discardableResult
    public func execute(_ statement: SQL) throws -> Int {
        try send(statement).affected
    }

    /// Runs `statement` and reads each row's columns, in order, as `types`:
    /// `try connection.rows("SELECT state, attempts FROM ...", as: String.self, Int.self)`. A
    /// statement whose rows are not read is `execute`d: asking for no type fails on a row.
    /// (One pack, not a first type and the rest: Swift 6.3 cannot then name the tuple's members.)
    public func rows<each Value: PostgresDecodable>(_ statement: SQL, as types: repeat (each Value).Type) throws -> [(repeat each Value)] {
        try send(statement).map { try $0.decode(repeat each types) }
    }

    /// Runs `statement`, which answers exactly one row of one column, and reads it as `type`.
    public func value<Value: PostgresDecodable>(_ statement: SQL, as type: Value.Type = Value.self) throws -> Value {
        let rows = try self.rows(statement, as: type)
        guard rows.count == 1 else {
            throw PostgresError(.unexpectedResult, "expected one row, got \(rows.count): \(statement.text.prefix(80))")
        }
        return rows[0]
    }

    private func send(_ statement: SQL) throws -> Rows {
        if let written = statement.handWritten {
            throw PostgresError(
                .unexpectedResult, "\(written) written by hand in a statement: interpolate the value instead (\(statement.text.prefix(80)))")
        }
        return try query(statement.text, statement.parameters)
    }
}
