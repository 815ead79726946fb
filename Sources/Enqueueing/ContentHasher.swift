import Crypto
import DedicatedThreads
import Foundation

/// SHA-256 of files, read in 1 MiB pieces on dedicated threads, several files at once.
public enum ContentHasher {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Hex digests in the order of `paths`; `progress` is called with the count done so far.
    public static func sha256(_ paths: [String], threads: Int, progress: @escaping @Sendable (Int) -> Void) async throws -> [String] {
        let pool = ThreadPool(name: "discern-hash", threads: max(1, threads))
        defer { pool.shutdown() }
        let counter = Counter()
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var digests = [String](repeating: "", count: paths.count)
            var next = 0
            func submit() {
                guard next < paths.count else { return }
                let index = next, path = paths[index]
                next += 1
                group.addTask {
                    let digest = try await pool.run { try digestOfFile(path) }
                    progress(counter.increment())
                    return (index, digest)
                }
            }
            // A few files per thread in flight: the pool's queue stays short.
            for _ in 0..<(max(1, threads) * 4) { submit() }
            while let (index, digest) = try await group.next() {
                digests[index] = digest
                submit()
            }
            return digests
        }
    }

    /// Blocking: reads the file. Runs on the hashing pool only.
    static func digestOfFile(_ path: String) throws -> String {
        BlockingCallAudit.check("file hashing")
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Problem(description: "\(path) cannot be read")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() -> Int { lock.withLock { value += 1; return value } }
    }
}
