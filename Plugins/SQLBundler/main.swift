import Foundation

// SQLBundler ROOT OUTPUT FILE...: writes OUTPUT, a Swift file holding each FILE (relative to
// ROOT). Run by the BundleSQL build plugin, never by hand.
//   - the schema's files (schema.sql, migrations/, functions/, views/, grants.sql) as raw
//     string literals: `Schema.bundled`, in the order given;
//   - each statement of queries/NAME.sql as a constant of `Queries.Name` (docs/sql.md, "Where
//     the statements live"): a line `-- name: someName` starts a statement, the comment lines
//     right after it become the constant's documentation, and other comment lines are dropped
//     from the text sent to the server;
//   - a `-- fragment: some_name` is SQL text (a column list, a common part) that any statement
//     of any file includes at build time by writing `{{some_name}}`; it is no statement itself;
//   - for a statement that declares its parameters (`-- $1 job: bigint`, one line each, `?`
//     after the type when it may be NULL) and what each row returns (`-- returns: state text,
//     id bigint?`, or `-- returns: nothing`), a typed statement `Queries.Name.StatementName` (`TypedStatement`): its
//     parameters as named, typed fields, its rows as a struct. A `$n` in the text that is not
//     declared, or declared and not used, fails the build.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: SQLBundler ROOT OUTPUT FILE...\n".utf8))
    exit(2)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

/// A raw string literal holding `text`: more #s than any run after a quote or a backslash in it.
func literal(_ text: String) -> String {
    var hashes = 1
    while ["\"", "\\"].contains(where: { text.contains($0 + String(repeating: "#", count: hashes)) }) { hashes += 1 }
    let fence = String(repeating: "#", count: hashes)
    return "\(fence)\"\"\"\n\(text)\n\"\"\"\(fence)"
}

/// `batch_reports` → `BatchReports`.
func typeName(_ stem: String) -> String {
    stem.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
}

/// A declared parameter or returned column: its Swift name and type.
struct Field {
    let name: String
    let swiftType: String
    let optional: Bool
    var declaration: String { "\(name): \(swiftType)\(optional ? "?" : "")" }
}

/// The Swift type of a PostgreSQL type a declaration names; nil for one this generator does not map.
/// An array travels in binary (`BinaryArray`), its elements exactly the server's type (`Int32`
/// for integer, `JSONText` for jsonb), any of them NULL.
func swiftType(_ sqlType: String) -> String? {
    guard sqlType.hasSuffix("[]") else {
        switch sqlType {
        case "bigint", "integer", "smallint": return "Int"
        case "text", "timestamptz", "jsonb": return "String"
        case "boolean": return "Bool"
        case "double precision", "float8": return "Double"
        default: return nil
        }
    }
    let element: String? =
        switch sqlType.dropLast(2) {
        case "bigint": "Int"
        case "integer": "Int32"
        case "smallint": "Int16"
        case "text", "timestamptz": "String"
        case "jsonb": "JSONText"
        case "boolean": "Bool"
        case "double precision", "float8": "Double"
        default: nil
        }
    return element.map { "BinaryArray<\($0)>" }
}

/// `failing_since` → `failingSince`.
func camelCase(_ snake: String) -> String {
    let parts = snake.split(separator: "_")
    return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
}

struct Statement {
    let name: String
    /// A `-- fragment:` is no statement: its text goes, at build time, wherever a statement
    /// writes `{{its_name}}` (a column list two views share, say).
    var isFragment = false
    var documentation: [String] = []
    var lines: [String] = []
    /// By number: `$1` is parameters[1].
    var parameters: [Int: Field] = [:]
    var returns: [(column: String, field: Field)]? = nil
    var text: String {
        var text = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasSuffix(";") { text.removeLast() }
        return text
    }
}

/// The statements of one queries/ file, in order.
func statements(of path: String, _ source: String) -> [Statement] {
    var found: [Statement] = []
    for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("-- fragment:") {
            let name = trimmed.dropFirst("-- fragment:".count).trimmingCharacters(in: .whitespaces)
            guard name.wholeMatch(of: /[a-z][a-z0-9_]*/) != nil else { fail("\(path): '\(name)' is not a fragment name (snake_case)") }
            found.append(Statement(name: name, isFragment: true))
        } else if trimmed.hasPrefix("-- name:") {
            let name = trimmed.dropFirst("-- name:".count).trimmingCharacters(in: .whitespaces)
            guard let first = name.first, first.isLetter, first.isLowercase, name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                fail("\(path): '\(name)' is not a statement name (lowerCamelCase letters and digits)")
            }
            if found.contains(where: { $0.name == name }) { fail("\(path): two statements are named \(name)") }
            found.append(Statement(name: name))
        } else if trimmed.hasPrefix("--") {
            // Comments before the first statement head the file; right after a name, they document
            // it, or declare its parameters and rows.
            if var last = found.popLast() {
                let comment = String(trimmed.dropFirst(trimmed.hasPrefix("-- ") ? 3 : 2))
                if last.lines.isEmpty {
                    if comment.first == "$" {
                        guard let match = comment.wholeMatch(of: /\$([0-9]+) ([a-z][A-Za-z0-9]*): ([a-z0-9 ]+(?:\[\])?)(\?)?/) else {
                            fail("\(path): \(last.name): a parameter is declared `$N name: type` or `$N name: type?`: \(comment)")
                        }
                        guard let type = swiftType(String(match.3)) else { fail("\(path): \(last.name): no Swift type for \(match.3)") }
                        let number = Int(match.1)!
                        if last.parameters[number] != nil { fail("\(path): \(last.name): $\(number) is declared twice") }
                        last.parameters[number] = Field(name: String(match.2), swiftType: type, optional: match.4 != nil)
                    } else if comment == "returns: nothing" {
                        last.returns = []
                    } else if comment.hasPrefix("returns:") {
                        last.returns = comment.dropFirst("returns:".count).split(separator: ",").map { column in
                            guard let match = column.trimmingCharacters(in: .whitespaces).wholeMatch(of: /([a-z_][a-z0-9_]*) ([a-z0-9 ]+)(\?)?/),
                                let type = swiftType(String(match.2)), !type.hasPrefix("BinaryArray")
                            else { fail("\(path): \(last.name): a returned column is written `name type` or `name type?`: \(column)") }
                            return (String(match.1), Field(name: camelCase(String(match.1)), swiftType: type, optional: match.3 != nil))
                        }
                    } else {
                        last.documentation.append(comment)
                    }
                }
                found.append(last)
            }
        } else if var last = found.popLast() {
            last.lines.append(line)
            found.append(last)
        } else if !trimmed.isEmpty {
            fail("\(path): SQL before the first '-- name:' line")
        }
    }
    for statement in found where statement.text.isEmpty { fail("\(path): statement \(statement.name) is empty") }
    return found
}

/// The typed form of a statement that declares its parameters or rows (`TypedStatement`).
func typed(_ statement: Statement, in path: String) -> String {
    let used = Set(statement.text.matches(of: /\$([0-9]+)/).map { Int($0.1)! })
    let declared = Set(statement.parameters.keys)
    guard used == declared, declared == Set(declared.isEmpty ? [] : Array(1...declared.count)) else {
        fail("\(path): \(statement.name) uses $\(used.sorted()) but declares $\(declared.sorted()) (each of $1...$n, once)")
    }
    let parameters = declared.sorted().map { statement.parameters[$0]! }
    let type = statement.name.prefix(1).uppercased() + statement.name.dropFirst()
    var swift = "        /// `\(statement.name)`, typed: its parameters by name, each row as an `Output`.\n"
    swift += "        public struct \(type): TypedStatement {\n"
    swift += "            public static var text: String { \(statement.name) }\n"
    for field in parameters { swift += "            public var \(field.declaration)\n" }
    swift += "            public init(\(parameters.map(\.declaration).joined(separator: ", "))) {\n"
    for field in parameters { swift += "                self.\(field.name) = \(field.name)\n" }
    swift += "            }\n"
    swift += "            public var parameters: [(any PostgresEncodable)?] { [\(parameters.map(\.name).joined(separator: ", "))] }\n"
    if let returns = statement.returns, !returns.isEmpty {
        let document = returns.count == 1 && returns[0].column == "doc" && returns[0].field.swiftType == "String" && returns[0].field.optional
        swift += "            public struct Output: Sendable\(document ? ", DocumentRow" : "") {\n"
        for (_, field) in returns { swift += "                public let \(field.declaration)\n" }
        swift += "            }\n"
        let reads = returns.map { column, field in
            "\(field.name): try row.column(\"\(column)\", as: \(field.swiftType)\(field.optional ? "?" : "").self)"
        }
        swift += "            public static func output(_ row: Row) throws -> Output { Output(\(reads.joined(separator: ", "))) }\n"
    } else {
        swift += "            public static func output(_ row: Row) throws {}\n"
    }
    swift += "        }\n"
    return swift
}

let root = URL(fileURLWithPath: arguments[1])
let files = try arguments.dropFirst(3).map { path in
    (path: path, text: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
}
let queryFiles = files.filter { $0.path.hasPrefix("queries/") }

var swift = "// Generated by the BundleSQL plugin from the .sql files under sql/: do not edit.\nimport Postgres\n\n"
swift += "extension Schema {\n    static let bundled: [(path: String, text: String)] = [\n"
for file in files where !file.path.hasPrefix("queries/") {
    swift += "        (\"\(file.path)\", \(literal(file.text))),\n"
}
swift += "    ]\n}\n"

/// Every file's statements, and the fragments of all of them by name.
let parsed = queryFiles.map { (file: $0, statements: statements(of: $0.path, $0.text)) }
var collected: [String: String] = [:]
for (file, found) in parsed {
    for fragment in found where fragment.isFragment {
        if collected[fragment.name] != nil { fail("\(file.path): two fragments are named \(fragment.name)") }
        collected[fragment.name] = fragment.text
    }
}
let fragments = collected

/// `statement` with every `{{fragment}}` written out; `{{constant}}`s stay for `Queries.resolved`.
func expanded(_ statement: Statement, _ fragments: [String: String]) -> Statement {
    var statement = statement
    let text = statement.lines.joined(separator: "\n").replacing(/\{\{([a-z_]+)\}\}/) { match in
        fragments[String(match.1)] ?? String(match.0)
    }
    statement.lines = text.components(separatedBy: "\n")
    return statement
}

var catalogue: [String] = []
for (file, found) in parsed {
    let stem = String(file.path.dropFirst("queries/".count).dropLast(".sql".count))
    guard !stem.contains("/"), stem.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }) else {
        fail("\(file.path): a queries file is named snake_case.sql, directly under queries/")
    }
    let type = typeName(stem)
    swift += "\nextension Queries {\n    /// The statements of sql/\(file.path).\n    public enum \(type) {\n"
    for statement in found.filter({ !$0.isFragment }).map({ expanded($0, fragments) }) {
        for line in statement.documentation { swift += "        /// \(line)\n" }
        swift += "        public static let \(statement.name) = Queries.resolved(\(literal(statement.text)))\n"
        if !statement.parameters.isEmpty || statement.returns != nil { swift += typed(statement, in: file.path) }
        catalogue.append("(\"\(file.path)\", \"\(statement.name)\", \(type).\(statement.name))")
    }
    swift += "    }\n}\n"
}
swift += "\nextension Queries {\n    /// Every statement: its file, its name and its text, constants filled in.\n"
swift += "    public static let all: [(file: String, name: String, text: String)] = [\n"
swift += catalogue.map { "        \($0)" }.joined(separator: ",\n") + "\n    ]\n}\n"
try swift.write(to: URL(fileURLWithPath: arguments[2]), atomically: true, encoding: .utf8)
