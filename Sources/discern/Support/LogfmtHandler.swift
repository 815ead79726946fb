import Foundation
import Logging
import Synchronization

/// Writes one line per event to standard error, as logfmt:
/// `ts=... level=info logger=discern.worker msg="job succeeded" job=12 ...`
/// or as a JSON object with the same fields (`--log-format json`), for log collectors.
struct LogfmtHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let label: String
    let json: Bool

    private static let bootstrapped = Mutex(false)

    static func bootstrapOnce(json: Bool = false) {
        bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { LogfmtHandler(label: $0, json: json) }
        }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if json {
            // JSON escapes control characters itself; values are only cut to 8 KB.
            var object: [String: String] = [
                "ts": Date().formatted(.iso8601), "level": event.level.rawValue, "logger": label,
                "msg": String(event.message.description.prefix(8192))
            ]
            for (key, value) in merged where object[key] == nil { object[key] = String(value.description.prefix(8192)) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            StandardError.writeLine(String(decoding: data, as: UTF8.self))
            return
        }
        var fields = [
            "ts=\(Date().formatted(.iso8601))", "level=\(event.level.rawValue)", "logger=\(label)",
            "msg=\(Self.quote(event.message.description))"
        ]
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            fields.append("\(key)=\(Self.quote(value.description))")
        }
        StandardError.writeLine(fields.joined(separator: " "))
    }

    /// One logfmt value: quoted when it must be, control characters escaped (a path or a
    /// service's answer holding CR or ESC cannot forge or hide log lines), at most 8 KB.
    static func quote(_ value: String) -> String {
        let safe = TerminalText.safe(value.replacingOccurrences(of: "\\", with: "\\\\"), maxLength: 8192)
        let needsQuotes = safe.isEmpty || safe.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" }
        guard needsQuotes else { return safe }
        return "\"\(safe.replacingOccurrences(of: "\"", with: "\\\""))\""
    }
}
