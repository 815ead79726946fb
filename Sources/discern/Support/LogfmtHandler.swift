import Foundation
import Logging

/// Writes one logfmt line per event to standard error:
/// `ts=... level=info logger=discern.worker msg="job succeeded" job=12 ...`
struct LogfmtHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let label: String

    private static let bootstrapped: Void = LoggingSystem.bootstrap { LogfmtHandler(label: $0) }
    static func bootstrapOnce() { _ = bootstrapped }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = [
            "ts=\(Date().formatted(.iso8601))", "level=\(event.level.rawValue)", "logger=\(label)",
            "msg=\(Self.quote(event.message.description))",
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            fields.append("\(key)=\(Self.quote(value.description))")
        }
        FileHandle.standardError.write(Data((fields.joined(separator: " ") + "\n").utf8))
    }

    private static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
