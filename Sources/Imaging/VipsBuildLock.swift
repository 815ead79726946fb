import Foundation

/// One process-wide lock around building libvips pipelines and dropping them.
///
/// libvips compiles ORC vector code when an operation is built (a resize's `reducev`) and frees
/// it when the operation is finalised, which happens when the last image of a pipeline is
/// unreferenced. orc 0.4.33 (Debian bookworm) does both without a lock of its own, and the
/// test suite crashed inside liborc with several images in flight. Building and dropping are
/// quick; decoding and encoding, where the time goes, run outside the lock, in parallel.
/// Recursive, because a `VipsImage` may be released while a build holds the lock.
enum VipsBuildLock {
    private static let lock = NSRecursiveLock()

    static func serialized<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
