import Foundation
import QueueReads

extension DatabaseOptions {
    /// The read model on one connection: the CLI prints the views the console shows.
    func reader() async throws -> QueueReader {
        try await QueueReader(conninfo: conninfo, connections: 1, name: "discern-cli")
    }
}

extension JSONOutput {
    /// A view as `--format json` prints it: the document `/api/` returns, indented.
    static func printView<View: Encodable>(_ view: View) throws {
        try print(String(decoding: try QueueReader.encoder.encode(view), as: UTF8.self))
    }
}

/// How the CLI prints a time from a view (ISO 8601 from PostgreSQL): to the second, UTC kept.
enum ViewText {
    static func time(_ iso: String?) -> String {
        guard let iso else { return "-" }
        return String(iso.replacingOccurrences(of: "T", with: " ").prefix(19))
    }

    static func file(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
}
