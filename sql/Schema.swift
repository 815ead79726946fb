import Foundation

/// The versioned migrations shipped in sql/migrations, in the order they apply.
/// File names are `NNNN_description.sql`; NNNN is the version recorded once applied.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String
}

public enum Schema {
    public static func migrations() throws -> [Migration] {
        guard let folder = Bundle.module.url(forResource: "migrations", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the migrations folder is missing from the discern bundle"])
        }
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        return try files
            .filter { $0.pathExtension == "sql" }
            .compactMap { url -> Migration? in
                let stem = url.deletingPathExtension().lastPathComponent
                guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else { return nil }
                return Migration(version: version, name: String(stem[stem.index(after: underscore)...]),
                                 sql: try String(contentsOf: url, encoding: .utf8))
            }
            .sorted { $0.version < $1.version }
    }
}
