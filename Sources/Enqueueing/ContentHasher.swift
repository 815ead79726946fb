import Crypto
import DedicatedThreads
import Foundation
import MediaFiles
import Synchronization

/// SHA-256 of files, read in 1 MiB pieces on dedicated threads, several files at once, each
/// opened as a worker opens it (`PathRoots.open`): under the roots, through no symlink, never
/// blocking on a FIFO or a device, and read only as far as its size when opened. A file swapped
/// for a FIFO or a link to /dev/zero between the walk and the hash is skipped, not waited on.
public enum ContentHasher {
    /// Hex digests in the order of `paths`, nil for a file that could not be opened as a
    /// regular file under `roots` (with why, for the caller to report); `progress` is called
    /// with the count done so far. A file over `maxBytes` is not read at all (a worker refuses it
    /// from its size): a sparse file of exabytes in the folder must not hold the night's enqueue.
    public static func sha256(
        _ paths: [String], roots: PathRoots, threads: Int, maxBytes: Int = .max,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws -> [Result<String, EnqueueError>] {
        let pool = ThreadPool(name: "discern-hash", threads: max(1, threads))
        defer { pool.shutdown() }
        let counter = Counter()
        return try await withThrowingTaskGroup(of: (Int, Result<String, EnqueueError>).self) { group in
            var digests = [Result<String, EnqueueError>](repeating: .failure(EnqueueError(.unreadable, "not hashed")), count: paths.count)
            var next = 0
            func submit() {
                guard next < paths.count else { return }
                let index = next, path = paths[index]
                next += 1
                group.addTask() {
                    let digest = try await pool.run { digestOfFile(path, roots: roots, maxBytes: maxBytes) }
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
    static func digestOfFile(_ path: String, roots: PathRoots, maxBytes: Int = .max) -> Result<String, EnqueueError> {
        BlockingCallAudit.check("file hashing")
        do throws(FileAccessError) {
            let file = try roots.open(path)
            guard file.size <= maxBytes else {
                return .failure(
                    EnqueueError(
                        .unreadable,
                        "\(path) is \(file.size) bytes, over the \(maxBytes)-byte limit for a source file: a worker would refuse it, so it is not read"
                    ))
            }
            var hasher = SHA256()
            var offset = 0
            while offset < file.size {
                let chunk = try file.read(at: offset, count: min(1 << 20, file.size - offset))
                guard !chunk.isEmpty else { throw FileAccessError(.truncated, "\(path) shrank while it was read") }
                hasher.update(data: chunk)
                offset += chunk.count
            }
            return .success(hasher.finalize().map { String(format: "%02x", $0) }.joined())
        } catch {
            return .failure(EnqueueError(.unreadable, error.message))
        }
    }

    private final class Counter: Sendable {
        private let value = Mutex(0)
        func increment() -> Int {
            value.withLock {
                $0 += 1; return $0
            }
        }
    }
}
