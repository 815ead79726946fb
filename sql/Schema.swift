import Foundation

/// The schema's source, compiled into the binary by the BundleSQL plugin (every .sql file
/// under sql/, as the folder holds them; docs/sql.md):
/// - `schema.sql`: the tables, indexes and seed rows a fresh database starts from, generated
///   from a migrated database (a test keeps it equal to one);
/// - `migrations/NNNN_description.sql`: numbered changes of tables and data, each applied once;
/// - `functions/NAME.sql`, `views/NAME.sql`, `grants.sql`: the current definition of each
///   function (with its triggers), each view, and who may do what; applied again whenever the
///   file changes (repeatable, as Flyway has them).
public enum Schema {
    /// The newest version sql/schema.sql stands for: databases made before it carry migrations
    /// 1 to 25, which it replaces; a database older than that upgrades with an earlier release.
    public static let baselineVersion = 25

    public static var freshSchema: String {
        bundled.first { $0.path == "schema.sql" }?.text ?? ""
    }

    public static func migrations() throws -> [Migration] {
        try bundled.filter { $0.path.hasPrefix("migrations/") }.map { path, text in
            let stem = String(path.dropFirst("migrations/".count).dropLast(".sql".count))
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > baselineVersion else {
                throw CocoaError(
                    .fileReadCorruptFile,
                    userInfo: [NSLocalizedDescriptionKey: "\(path) is not named NNNN_description.sql with NNNN above \(baselineVersion)"])
            }
            return Migration(
                version: version, name: String(stem[stem.index(after: underscore)...]), sql: text,
                breaking: text.split(separator: "\n").contains { $0.hasPrefix(Migration.breakingMark) })
        }.sorted { $0.version < $1.version }
    }

    /// Functions first (their triggers with them), then views, then grants: each may use what
    /// comes before it.
    public static var repeatables: [Repeatable] {
        let order: [(folder: String, kind: Repeatable.Kind)] = [("functions/", .function), ("views/", .view)]
        var all = order.flatMap { folder, kind in
            bundled.filter { $0.path.hasPrefix(folder) }.map { Repeatable(kind: kind, path: $0.path, sql: $0.text) }
        }
        if let grants = bundled.first(where: { $0.path == "grants.sql" }) {
            all.append(Repeatable(kind: .grants, path: grants.path, sql: grants.text))
        }
        return all
    }

    /// Every bundled file by its path under sql/ (the tests compare them with the folder).
    public static var files: [String: String] {
        Dictionary(bundled.map { ($0.path, $0.text) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A numbered migration: applied once, in order, each in its own transaction. Migrations add
/// (docs/operations.md, "Upgrades"): the previous release's workers run beside the new schema.
/// One that they cannot run beside says so with a line starting `-- discern:breaking`, and a
/// worker older than it refuses to start.
public struct Migration: Sendable {
    public static let breakingMark = "-- discern:breaking"
    public let version: Int
    public let name: String
    public let sql: String
    public let breaking: Bool
}

/// A file applied again whenever its text changes.
public struct Repeatable: Sendable {
    public enum Kind: Sendable { case function, view, grants }
    public let kind: Kind
    public let path: String
    public let sql: String
}
