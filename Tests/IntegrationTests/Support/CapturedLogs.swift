import Foundation
import Logging

/// Keeps every log line a logger writes, rendered with its metadata, for assertions.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) { lock.withLock { lines.append(line) } }

    private struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.append("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
        }
    }
}
