import DedicatedThreads
import Imaging

/// Runs blocking work (libvips) for a one-shot command on a dedicated thread, so that even the
/// CLI never blocks Swift's cooperative pool.
enum OneShotThread {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let thread = ThreadPool(name: "discern-cli", threads: 1, onThreadExit: Vips.threadShutdown)
        defer { thread.shutdown() }
        return try await thread.run(body)
    }
}
