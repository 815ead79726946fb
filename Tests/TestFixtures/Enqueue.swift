import JobQueue
import Postgres

extension JobQueue {
    /// Enqueues one job per path, without content keys (the tests' and benches' shorthand; the
    /// product enqueues hashed files, `enqueue(_:files:...)`). Returns how many were added.
    @discardableResult
    public static func enqueue(
        _ connection: Connection, paths: [String], service: String = "discerner",
        action: String = "analyze", batch: String? = nil, priority: Int = 0,
        paramsJSON: String = "{}"
    ) throws -> Int {
        try enqueue(
            connection, files: paths.map { EnqueuedFile(path: $0) }, service: service, action: action, batch: batch,
            priority: priority, paramsJSON: paramsJSON)
    }
}
